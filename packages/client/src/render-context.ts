import type { TextRun } from './generated/schema.ts';
import { escapeHtml, html, raw, type SafeHtml } from './html.ts';
import { type LinkComponent, renderText, safeHref } from './render-text.ts';

/** Helpers handed to every block component so custom markup stays as safe as the default. */
export interface RenderContext {
  /** Renders text runs with marks and rule-2 links (through the `link` option), escaped. */
  renderText(runs: readonly TextRun[]): SafeHtml;
  /** The href when it may be a link (http/https, site path, #anchor), else undefined. */
  safeHref(href: unknown): string | undefined;
  /** Escapes text for element content or a quoted attribute. */
  escape(value: string): string;
  /** The escaping tagged template. */
  html: typeof html;
  /** Marks trusted markup; never pass article content to it. */
  raw: typeof raw;
  /** Position of the block in the array. */
  index: number;
  /**
   * True for the image the page should load first: the first image block that renders, unless
   * `renderBlocks` was told `eagerFirstImage: false`. The built-in image then leaves out
   * `loading="lazy"` and asks for `fetchpriority="high"`.
   */
  priority: boolean;
}

/**
 * Builds the context for the block at `index`; `renderText` uses `link` when given.
 * @example
 * createRenderContext(0).renderText([{ text: '<b>' }]).toString(); // '&lt;b&gt;'
 */
export function createRenderContext(index: number, link?: LinkComponent, priority = false): RenderContext {
  return {
    renderText: (runs) => renderText(runs, link),
    safeHref,
    escape: escapeHtml,
    html,
    raw,
    index,
    priority,
  };
}
