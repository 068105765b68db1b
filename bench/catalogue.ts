import type { ArticleInput, Block, TextRun } from '@folio/schema';

/**
 * A deterministic, realistic catalogue for the delivery benchmark: varied blocks (paragraphs
 * with marks and links, headings, lists, an image, a code block, sometimes a table, FAQ,
 * callout, quote or video), about 4 KB of served JSON per article.
 */

/** One generated article: its id, its ingest body and the time it is published at. */
export interface CatalogueArticle {
  id: string;
  input: ArticleInput;
  /** Epoch milliseconds; distinct per article, the newest has the highest index. */
  publishedAt: number;
}

const WORDS = (
  'cache content delivery static site render build deploy request response header version ' +
  'article block paragraph heading schema index query page slug sitemap editor draft publish ' +
  'reader search engine metadata image caption layout template component server client browser ' +
  'latency throughput memory storage database transaction webhook event signature retry key ' +
  'token project website team workflow review release feature guide example pattern format ' +
  'simple quick reliable careful modern small large fresh stale strong weak clear useful ' +
  'the a of to and in for with on by from that this every each when how why your our its'
).split(' ');
const TOPICS = [
  'Core Web Vitals',
  'static site generation',
  'incremental builds',
  'image optimisation',
  'structured data',
  'content modelling',
  'editorial workflows',
  'cache invalidation',
  'webhooks',
  'internationalisation',
  'accessibility',
  'headless CMS migrations',
];
const LANGUAGES = ['ts', 'js', 'json', 'sh', 'css', 'html'];
const VIDEO_IDS = ['dQw4w9WgXcQ', 'M7lc1UVf-VE', 'aqz-KE-bpKQ', 'ScMzIvxBSi4'];
const START = Date.parse('2020-01-01T00:00:00.000Z');

/** The article at `index` of a catalogue; equal indexes give equal articles. */
export function catalogueArticle(index: number): CatalogueArticle {
  const random = mulberry32(index + 1);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const words = (min: number, max: number) =>
    Array.from({ length: min + Math.floor(random() * (max - min + 1)) }, () => pick(WORDS)).join(' ');
  const sentence = () => {
    const text = words(6, 13);
    return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
  };
  const topic = pick(TOPICS);
  const title = `${topic}: ${words(3, 7)} (${index})`;
  const slug = `${slugify(topic)}-${slugify(words(2, 4))}-${index}`;
  const runs = (): TextRun[] => {
    const out: TextRun[] = [{ text: `${sentence()} ${sentence()} ` }];
    const mark = random();
    if (mark < 0.3) out.push({ text: words(1, 3), bold: true });
    else if (mark < 0.5) out.push({ text: words(1, 3), italic: true });
    else if (mark < 0.65) out.push({ text: pick(WORDS), code: true });
    else if (mark < 0.85)
      out.push({ text: words(2, 4), href: `/blog/${slugify(words(2, 4))}-${Math.floor(random() * index)}` });
    else
      out.push({
        text: words(2, 4),
        href: `https://developer.mozilla.org/en-US/docs/Web/${pick(['HTTP', 'CSS', 'API'])}`,
        rel: 'noopener',
      });
    out.push({ text: ` ${sentence()}` });
    return out;
  };
  const blocks: Block[] = [
    { type: 'paragraph', id: 'intro', content: runs() },
    { type: 'heading', id: 'why', level: 2, text: `Why ${words(2, 5)}` },
    { type: 'paragraph', content: runs() },
    { type: 'paragraph', content: runs() },
    {
      type: 'list',
      ordered: random() < 0.4,
      items: Array.from({ length: 3 + Math.floor(random() * 3) }, () => [{ text: sentence() }]),
    },
    {
      type: 'image',
      url: `https://images.example.com/${index}/${slugify(words(1, 3))}.jpg`,
      alt: sentence(),
      ...(random() < 0.6 ? { caption: words(4, 9) } : {}),
    },
    { type: 'heading', id: 'how', level: 2, text: `How ${words(2, 5)}` },
    { type: 'paragraph', content: runs() },
    { type: 'code', language: pick(LANGUAGES), code: codeSample(words, random) },
  ];
  const extra = random();
  if (extra < 0.2) blocks.push(tableBlock(words, random));
  else if (extra < 0.4) blocks.push(faqBlock(sentence, runs));
  else if (extra < 0.6)
    blocks.push({ type: 'callout', variant: pick(['info', 'tip', 'warning'] as const), content: runs() });
  else if (extra < 0.75) blocks.push({ type: 'quote', content: runs(), attribution: words(2, 3) });
  else if (extra < 0.85)
    blocks.push({
      type: 'video',
      provider: 'youtube',
      videoId: pick(VIDEO_IDS),
      url: `https://www.youtube.com/watch?v=${pick(VIDEO_IDS)}`,
      title: words(3, 6),
    });
  blocks.push(
    { type: 'heading', id: 'summary', level: 3, text: 'Summary' },
    { type: 'paragraph', content: runs() },
  );
  return {
    id: `art-${index}`,
    input: {
      slug,
      title,
      blocks,
      seo: random() < 0.5 ? { description: `${sentence()} ${sentence()}` } : {},
      published: true,
    },
    // Ten minutes apart, so the newest-first order is total and pages are stable.
    publishedAt: START + index * 600_000,
  };
}

function codeSample(words: (min: number, max: number) => string, random: () => number): string {
  const lines = 3 + Math.floor(random() * 5);
  return Array.from(
    { length: lines },
    (_, i) => `${'  '.repeat(i % 3)}const ${slugify(words(1, 2)).replace(/-/g, '_')}${i} = '${words(2, 5)}';`,
  ).join('\n');
}

function tableBlock(words: (min: number, max: number) => string, random: () => number): Block {
  const columns = 3 + Math.floor(random() * 2);
  return {
    type: 'table',
    headers: Array.from({ length: columns }, () => words(1, 2)),
    rows: Array.from({ length: 3 + Math.floor(random() * 3) }, () =>
      Array.from({ length: columns }, () => words(1, 3)),
    ),
  };
}

function faqBlock(sentence: () => string, runs: () => TextRun[]): Block {
  return {
    type: 'faq',
    items: Array.from({ length: 3 }, () => ({ question: `${sentence().slice(0, -1)}?`, answer: runs() })),
  };
}

function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

// A small seeded generator: the same index always yields the same article.
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
