import {
  type Block,
  type BlockOf,
  type BlockType,
  type Change,
  type CommonClientOptions,
  createClient,
  type FolioClient,
  FolioError,
  type HeadArticle,
  type RenderBlocksOptions,
  renderBlocks,
  renderHead,
  type SyncResult,
} from '@folio/client';
import type { Loader, LoaderContext } from 'astro/loaders';
import { folioArticleSchema } from './schema.ts';

/** Options of `folioLoader`. */
export interface FolioLoaderOptions {
  /** Folio's base address, e.g. `https://folio.example.com`. */
  baseUrl: string;
  /** The project id from the dashboard's Connection card. */
  projectId: string;
  /** A content key (`folio_ck_…`), read from the build's environment; never write it in source. */
  contentKey: string;
  /** The site's origin for canonical URLs in `head`; defaults to Astro's `site`. */
  origin?: string;
  /** The site's name, for `og:site_name` in `head`. */
  siteName?: string;
  /** Passed to `renderBlocks`: your own markup per block type, or for links. */
  render?: Pick<RenderBlocksOptions, 'components' | 'link'>;
  /** The fetch to use; defaults to the global one. */
  fetch?: typeof globalThis.fetch;
  /**
   * How the client waits and retries (`timeoutMs`, `retries`, `retryDelayMs`,
   * `maxRetryDelayMs`, as `createClient` takes them). A build would rather wait than fail, so
   * the loader's defaults are longer than the client's: 4 retries from a first wait of 1 s
   * (7.5–15 s in all, enough for a Folio restart), and a `Retry-After` of up to 60 s is waited out.
   */
  client?: Omit<CommonClientOptions, 'baseUrl' | 'projectId' | 'fetch'>;
}

// A rate limit's window is often a minute: a build that waits one out still finishes, where
// the client's defaults (meant for a page being rendered) would fail it at once. The first wait
// of a second makes the four retries span a Folio restart (start-up takes seconds), which the
// client's quarter second does not.
const BUILD_RETRIES = { retries: 4, retryDelayMs: 1_000, maxRetryDelayMs: 60_000 } as const;

/** What one load did, for the build log. */
interface LoadSummary {
  upserts: number;
  deletes: number;
  /** Why the collection was rebuilt from the whole published set, if it was. */
  full?: 'first sync' | 'cursor expired' | 'cursor not accepted' | 'another project' | 'rendering changed';
}

// Meta store keys. The cursor is only valid for the server and project that issued it; the
// key itself is never stored, since the data store is a file in the build cache.
const CURSOR = 'cursor';
const SOURCE = 'source';
const RENDERING = 'rendering';

// What every entry's HTML is made like: when it renders differently (another renderer after an
// upgrade of @folio/client, other components), so would the stored entries. One block of each
// type with every optional field, typed so that a new block type is a compile error until it
// is here: a type left out would miss its renderer's upgrades.
const PROBE: { [K in BlockType]: BlockOf<K> } = {
  heading: { type: 'heading', id: 'probe', level: 2, text: 'Probe <&>' },
  paragraph: {
    type: 'paragraph',
    content: [
      { text: 'A link', href: '/probe', rel: 'nofollow', bold: true, italic: true },
      { text: ' and "text"', code: true },
      { text: 'an anchor', href: '#probe' },
    ],
  },
  list: {
    type: 'list',
    ordered: true,
    items: [[{ text: 'Item' }], [{ text: 'Other', href: 'https://example.com/' }]],
  },
  quote: { type: 'quote', content: [{ text: 'Quoted' }], attribution: 'Someone' },
  code: { type: 'code', language: 'js', code: 'probe("<tag>")' },
  image: { type: 'image', url: '/probe.png', alt: 'Probe', caption: 'A caption', width: 640, height: 480 },
  callout: { type: 'callout', variant: 'warning', content: [{ text: 'Careful' }] },
  cta: { type: 'cta', heading: 'Act', body: 'Now', buttonLabel: 'Go', buttonHref: '/go' },
  faq: { type: 'faq', items: [{ question: 'Why?', answer: [{ text: 'Because' }] }] },
  table: { type: 'table', headers: ['A', 'B'], rows: [['1', '2']] },
  video: {
    type: 'video',
    provider: 'youtube',
    videoId: 'aaaaaaaaaaa',
    url: 'https://www.youtube.com/watch?v=aaaaaaaaaaa',
    title: 'A video',
  },
};
const PROBE_BLOCKS: Block[] = Object.values(PROBE);
const PROBE_HEAD: HeadArticle = {
  title: 'Probe',
  seo: {
    title: 'Probe',
    description: 'A probe',
    canonicalPath: '/probe',
    ogTitle: 'Probe on social',
    ogDescription: 'A probe on social',
    ogImage: '/probe.png',
    ogType: 'article',
    jsonLd: { '@type': 'BlogPosting' },
  },
  publishedAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
};

/**
 * What the stored `rendered.html` and `head` were made with: the head's origin and site name,
 * the components' and link's code, and what the renderers make of probe content. A change to
 * any of them makes every entry again.
 */
function renderingOf(
  head: { origin: string; siteName?: string },
  render: FolioLoaderOptions['render'],
): string {
  const code = [
    ...Object.entries(render?.components ?? {}).map(([type, component]) => `${type}:${String(component)}`),
    `link:${String(render?.link ?? '')}`,
  ];
  let probe: string;
  try {
    probe = `${renderBlocks(PROBE_BLOCKS, render)}\n${renderHead(PROBE_HEAD, head)}`;
  } catch (error) {
    // A component that cannot render the probe still renders articles its own way.
    probe = `probe failed: ${String(error)}`;
  }
  return JSON.stringify([head, code, probe]);
}

/**
 * An Astro content-layer loader for one Folio project. Each build asks the changes feed only for
 * what changed since the cursor kept in the collection's meta store, and applies it: upserts set
 * the entry (data, `rendered.html` from `renderBlocks`, `head` from `renderHead`), deletes remove
 * it. A first build, an expired cursor (410) or another project reads the whole published set.
 * @example
 * // src/content.config.ts
 * import { defineCollection } from 'astro:content';
 * import { folioLoader } from '@folio/astro';
 *
 * const articles = defineCollection({
 *   loader: folioLoader({
 *     baseUrl: import.meta.env.FOLIO_URL,
 *     projectId: import.meta.env.FOLIO_PROJECT_ID,
 *     contentKey: import.meta.env.FOLIO_CONTENT_KEY,
 *   }),
 * });
 * export const collections = { articles };
 */
export function folioLoader(options: FolioLoaderOptions): Loader {
  return {
    name: '@folio/astro',
    schema: folioArticleSchema,
    async load(context) {
      const summary = await syncCollection(options, context);
      const full = summary.full ? ` (full sync: ${summary.full})` : '';
      context.logger.info(`${summary.upserts} updated, ${summary.deletes} removed${full}`);
    },
  };
}

async function syncCollection(options: FolioLoaderOptions, context: LoaderContext): Promise<LoadSummary> {
  const { store, meta } = context;
  const client = createClient({
    ...BUILD_RETRIES,
    ...options.client,
    baseUrl: options.baseUrl,
    projectId: options.projectId,
    contentKey: requiredKey(options.contentKey),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const head = headOptions(options, context);
  const source = `${new URL(options.baseUrl).origin} ${options.projectId}`;
  const rendering = context.generateDigest(renderingOf(head, options.render));
  const { result, full } = await readChanges(client, meta.get(CURSOR), {
    sameSource: meta.get(SOURCE) === source,
    sameRendering: meta.get(RENDERING) === rendering,
  });
  // Without a cursor the feed answers the whole published set: anything stored before (another
  // project's entries, or those behind an expired cursor) must go, or deletions would be missed.
  if (full) store.clear();
  const summary: LoadSummary = { upserts: 0, deletes: 0, ...(full ? { full } : {}) };
  for (const change of result.changes) {
    await applyChange(change, context, head, options.render);
    summary[change.type === 'upsert' ? 'upserts' : 'deletes']++;
  }
  // Saved last: a build that fails midway starts again from the old cursor, and applying a
  // change twice is harmless.
  meta.set(SOURCE, source);
  meta.set(RENDERING, rendering);
  meta.set(CURSOR, result.cursor);
  return summary;
}

/** The changes since `saved`, or the whole published set when it cannot be used. */
async function readChanges(
  client: FolioClient,
  saved: string | undefined,
  same: { sameSource: boolean; sameRendering: boolean },
): Promise<{ result: SyncResult; full?: LoadSummary['full'] }> {
  if (saved === undefined) return { result: await client.sync(), full: 'first sync' };
  if (!same.sameSource) return { result: await client.sync(), full: 'another project' };
  if (!same.sameRendering) return { result: await client.sync(), full: 'rendering changed' };
  try {
    const result = await client.sync({ cursor: saved });
    return result.reset ? { result, full: 'cursor expired' } : { result };
  } catch (error) {
    // A cursor this server does not understand (400 invalid_query, e.g. written by another
    // Folio version) is as good as none.
    if (!(error instanceof FolioError && error.code === 'invalid_query')) throw error;
    return { result: await client.sync(), full: 'cursor not accepted' };
  }
}

async function applyChange(
  change: Change,
  { store, parseData, generateDigest }: LoaderContext,
  head: { origin: string; siteName?: string },
  render: FolioLoaderOptions['render'],
): Promise<void> {
  if (change.type === 'delete') {
    store.delete(change.id);
    return;
  }
  const { article } = change;
  const raw = { ...article, head: renderHead(article, head) };
  const data = await parseData({ id: article.id, data: raw });
  store.set({
    id: article.id,
    data,
    rendered: { html: renderBlocks(article.blocks, render) },
    digest: generateDigest(raw),
  });
}

function requiredKey(key: string | undefined): string {
  if (typeof key !== 'string' || key.trim() === '') {
    throw new TypeError(
      '@folio/astro: contentKey is empty; set it from the build environment (e.g. FOLIO_CONTENT_KEY)',
    );
  }
  // The SDK would say to pass it as previewKey, an option the loader does not have: it builds
  // the published site.
  if (key.startsWith('folio_pk_')) {
    throw new TypeError(
      '@folio/astro: contentKey is a preview key (folio_pk_…); the loader builds the published site from a content key (folio_ck_…)',
    );
  }
  return key;
}

function headOptions(options: FolioLoaderOptions, { config }: LoaderContext) {
  const origin = options.origin ?? config.site;
  if (!origin) {
    throw new TypeError(
      "@folio/astro: set `site` in astro.config (or the loader's `origin`) for canonical URLs",
    );
  }
  return { origin, ...(options.siteName ? { siteName: options.siteName } : {}) };
}
