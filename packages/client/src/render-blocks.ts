import { type BlockProblem, checkBlock } from './block-guards.ts';
import { type BlockComponent, defaultComponents } from './default-components.ts';
import type { BlockType } from './generated/schema.ts';
import { createRenderContext } from './render-context.ts';
import type { LinkComponent } from './render-text.ts';

/** Per-type overrides: each replaces the built-in markup of one block type. */
export type BlockComponents = { [K in BlockType]?: BlockComponent<K> };

/** Options of `renderBlocks`. */
export interface RenderBlocksOptions {
  /** Your own markup per block type; it receives only blocks whose shape was checked. */
  components?: BlockComponents;
  /**
   * Your own link markup (a class, `target`, an icon); called only for hrefs that passed seed
   * rule 2, so an override cannot bring back an unsafe link.
   */
  link?: LinkComponent;
  /** Called for each block that renders nothing because its type is unknown or it is malformed. */
  onSkip?: (block: unknown, index: number, problem: BlockProblem) => void;
  /**
   * Load the first image at once, with high priority (default true): it is usually in view when
   * the page opens. Set false when the blocks start below the fold; every image is lazy then.
   */
  eagerFirstImage?: boolean;
}

/**
 * Renders an article's blocks to an HTML string following the seed's site rules 1–3: text is
 * escaped, links keep only http(s)/site-path/#anchor targets, and an unknown or malformed block
 * renders nothing (never throws). Blocks are separated by a newline. The first image that
 * renders loads at once with high priority, later ones lazily; an image's `width` and `height`
 * become attributes, so the page keeps its layout while images load.
 * @example
 * renderBlocks([{ type: 'paragraph', content: [{ text: 'Hi', bold: true }] }]);
 * // '<p><strong>Hi</strong></p>'
 * renderBlocks(blocks, { components: { heading: (b, { html }) => html`<h2 class="t">${b.text}</h2>` } });
 */
export function renderBlocks(blocks: unknown, options: RenderBlocksOptions = {}): string {
  if (!Array.isArray(blocks)) return '';
  const parts: string[] = [];
  // Until an image renders, the next image block is the one to load first.
  let priorityImagePending = options.eagerFirstImage ?? true;
  for (let index = 0; index < blocks.length; index++) {
    const checked = checkBlock(blocks[index]);
    if ('problem' in checked) {
      options.onSkip?.(blocks[index], index, checked.problem);
      continue;
    }
    const { block } = checked;
    const component = (options.components?.[block.type] ?? defaultComponents[block.type]) as BlockComponent<
      typeof block.type
    >;
    const priority = priorityImagePending && block.type === 'image';
    const out = String(component(block, createRenderContext(index, options.link, priority)));
    if (out === '') continue;
    parts.push(out);
    if (priority) priorityImagePending = false;
  }
  return parts.join('\n');
}
