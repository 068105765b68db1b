import type { ArticleInput } from '@folio/schema';

/**
 * The public example article (`GET /public/v1/fixtures/article`). It uses every block type and
 * every optional field at least once, so a renderer built against it has seen the whole format.
 * Every block carries an `id`, which doubles as the target of `#` links.
 */

/** The example article: the ingest body plus the fields the server would have set. */
export interface FixtureArticle extends ArticleInput {
  id: string;
  /** ISO 8601 UTC with milliseconds. */
  publishedAt: string;
  /** ISO 8601 UTC with milliseconds. */
  updatedAt: string;
}

/** The articles the example's `related` slugs point to, in the same order. */
export const fixtureRelated: Array<{ id: string; slug: string; title: string }> = [
  {
    id: 'fixture-text-runs',
    slug: 'rendering-text-runs-safely',
    title: 'Rendering text runs safely',
  },
  {
    id: 'fixture-seo-fields',
    slug: 'seo-fields-folio-derives-and-you-set',
    title: 'SEO fields: what Folio derives and what you set',
  },
  {
    id: 'fixture-webhooks',
    slug: 'keeping-a-static-site-fresh-with-webhooks',
    title: 'Keeping a static site fresh with webhooks',
  },
];

export const fixtureArticle: FixtureArticle = {
  id: 'fixture-anatomy',
  slug: 'anatomy-of-a-folio-article',
  title: 'Anatomy of a Folio article: every block type',
  publishedAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T14:30:00.000Z',
  published: true,
  related: [
    'rendering-text-runs-safely',
    'seo-fields-folio-derives-and-you-set',
    'keeping-a-static-site-fresh-with-webhooks',
  ],
  seo: {
    title: 'Anatomy of a Folio article: every block type, explained',
    description:
      'A guided tour of the Folio block format: text runs, headings, lists, quotes, code, images, callouts, calls to action, tables, videos and FAQs, each shown as it is explained.',
  },
  blocks: [
    {
      type: 'paragraph',
      id: 'intro',
      content: [
        {
          text: 'A Folio article is a title and a flat array of blocks. There is no HTML anywhere in it: every block is plain data with a ',
        },
        { text: 'type', code: true },
        {
          text: ', and your site decides how each type looks. This article uses every block type and every optional field once, so you can build and test a renderer against it.',
        },
      ],
    },
    {
      type: 'heading',
      id: 'headings',
      level: 2,
      text: 'Headings start at level 2',
    },
    {
      type: 'paragraph',
      id: 'headings-explained',
      content: [
        { text: 'The article title is your page’s ' },
        { text: 'h1', code: true },
        {
          text: ', so heading blocks take levels 2, 3 and 4 only. A heading with an id, like the one above, is a natural target for a table of contents or a ',
        },
        { text: '#', code: true },
        { text: ' link.' },
      ],
    },
    {
      type: 'heading',
      id: 'text-runs',
      level: 2,
      text: 'Text runs carry the marks',
    },
    {
      type: 'paragraph',
      id: 'text-runs-explained',
      content: [
        {
          text: 'Paragraphs, list items, quotes, callouts and FAQ answers are arrays of text runs. A run is a piece of text with optional marks: ',
        },
        { text: 'bold', bold: true },
        { text: ', ' },
        { text: 'italic', italic: true },
        { text: ', ' },
        { text: 'inline code', code: true },
        { text: ', or ' },
        { text: 'all three at once', bold: true, italic: true, code: true },
        { text: '. A run with an ' },
        { text: 'href', code: true },
        { text: ' is a link, and its ' },
        { text: 'rel', code: true },
        { text: ' is kept as given, as in this link to the ' },
        {
          text: 'JSON Schema specification',
          href: 'https://json-schema.org/specification',
          rel: 'noopener noreferrer',
        },
        { text: '.' },
      ],
    },
    {
      type: 'code',
      id: 'text-run-example',
      language: 'json',
      code: `{
  "type": "paragraph",
  "content": [
    { "text": "Read the " },
    { "text": "guide", "href": "/blog/rendering-text-runs-safely" },
    { "text": " first.", "bold": true }
  ]
}`,
    },
    {
      type: 'heading',
      id: 'links',
      level: 3,
      text: 'Which links are allowed',
    },
    {
      type: 'paragraph',
      id: 'links-explained',
      content: [
        { text: 'A link is an ' },
        { text: 'http', code: true },
        { text: ' or ' },
        { text: 'https', code: true },
        { text: ' URL, a site path such as ' },
        { text: 'our guide to rendering text runs', href: '/blog/rendering-text-runs-safely' },
        { text: ', or an anchor such as ' },
        { text: 'the callouts section below', href: '#callouts' },
        {
          text: '. Folio refuses anything else when an article is saved, and a renderer should check again before writing an ',
        },
        { text: 'href', code: true },
        { text: ' attribute.' },
      ],
    },
    {
      type: 'heading',
      id: 'links-refused',
      level: 4,
      text: 'What is refused, and why',
    },
    {
      type: 'list',
      id: 'refused-links',
      ordered: false,
      items: [
        [
          { text: 'javascript:', code: true },
          { text: ' and ' },
          { text: 'data:', code: true },
          { text: ' URLs, which can run script.' },
        ],
        [
          { text: 'Protocol-relative paths such as ' },
          { text: '//evil.example', code: true },
          { text: ', which leave your site.' },
        ],
        [
          {
            text: 'Whitespace, control characters and backslashes, which browsers silently strip or reinterpret.',
          },
        ],
      ],
    },
    {
      type: 'heading',
      id: 'lists',
      level: 2,
      text: 'Lists, ordered and unordered',
    },
    {
      type: 'paragraph',
      id: 'lists-explained',
      content: [
        { text: 'A list block has an ' },
        { text: 'ordered', code: true },
        {
          text: ' flag and an array of items, where each item is itself an array of text runs. The list above is unordered; this one is ordered, and describes how to render one:',
        },
      ],
    },
    {
      type: 'list',
      id: 'render-a-list',
      ordered: true,
      items: [
        [
          { text: 'Pick ' },
          { text: 'ol', code: true },
          { text: ' or ' },
          { text: 'ul', code: true },
          { text: ' from the flag.' },
        ],
        [
          { text: 'Render each item’s runs inside an ' },
          { text: 'li', code: true },
          { text: ', escaping the text.' },
        ],
        [
          { text: 'Leave numbering to the browser', italic: true },
          { text: ', so it stays correct for assistive technology.' },
        ],
      ],
    },
    {
      type: 'heading',
      id: 'quotes',
      level: 2,
      text: 'Quotes',
    },
    {
      type: 'quote',
      id: 'quote-example',
      content: [{ text: 'Be conservative in what you do, be liberal in what you accept from others.' }],
      attribution: 'Jon Postel, RFC 761',
    },
    {
      type: 'paragraph',
      id: 'quotes-explained',
      content: [
        { text: 'A quote holds text runs and an optional ' },
        { text: 'attribution', code: true },
        { text: ', plain text that a renderer typically places in a ' },
        { text: 'figcaption', code: true },
        { text: ' or a ' },
        { text: 'cite', code: true },
        { text: ' element. When it is missing, render the quote alone.' },
      ],
    },
    {
      type: 'heading',
      id: 'code',
      level: 2,
      text: 'Code',
    },
    {
      type: 'paragraph',
      id: 'code-explained',
      content: [
        { text: 'A code block is the source as one string, with line breaks kept, and an optional ' },
        { text: 'language', code: true },
        {
          text: ' hint for syntax highlighting, as in the JSON example above. Without a language, render it as preformatted text, like this terminal output:',
        },
      ],
    },
    {
      type: 'code',
      id: 'terminal-output',
      code: `$ curl -s https://folio.example.com/public/v1/fixtures/article | jq -r '.data.title'
Anatomy of a Folio article: every block type`,
    },
    {
      type: 'heading',
      id: 'images',
      level: 2,
      text: 'Images',
    },
    {
      type: 'image',
      id: 'image-example',
      url: 'https://images.example.com/folio/block-anatomy-diagram.png',
      alt: 'Diagram of an article: a title above a vertical stack of coloured blocks, each labelled with its type',
      caption: 'An article is a title and a flat stack of typed blocks.',
      width: 1200,
      height: 800,
    },
    {
      type: 'paragraph',
      id: 'images-explained',
      content: [
        { text: 'An image needs a URL and ' },
        { text: 'alt', code: true },
        {
          text: ' text; describe what the image shows, not what it is. The caption is optional and visible to everyone. Give ',
        },
        { text: 'width', code: true },
        { text: ' and ' },
        { text: 'height', code: true },
        {
          text: ' in pixels too, and the page keeps the image’s space while it loads instead of jumping. Unless an article sets its own Open Graph image, the first image block becomes ',
        },
        { text: 'seo.ogImage', code: true },
        { text: '.' },
      ],
    },
    {
      type: 'heading',
      id: 'callouts',
      level: 2,
      text: 'Callouts',
    },
    {
      type: 'paragraph',
      id: 'callouts-explained',
      content: [
        { text: 'A callout sets text apart from the flow. Its ' },
        { text: 'variant', code: true },
        { text: ' is one of three values, shown here in turn.' },
      ],
    },
    {
      type: 'callout',
      id: 'callout-info',
      variant: 'info',
      content: [
        { text: 'Info', bold: true },
        { text: ' adds context: the block schema is served at ' },
        { text: '/public/v1/schema/blocks.json', code: true },
        { text: ' and needs no key.' },
      ],
    },
    {
      type: 'callout',
      id: 'callout-tip',
      variant: 'tip',
      content: [
        { text: 'Tip', bold: true },
        {
          text: ' suggests a better way: validate this article against that schema in your renderer’s tests.',
        },
      ],
    },
    {
      type: 'callout',
      id: 'callout-warning',
      variant: 'warning',
      content: [
        { text: 'Warning', bold: true },
        { text: ' flags a risk: never insert article text as raw HTML, even when it looks harmless.' },
      ],
    },
    {
      type: 'heading',
      id: 'tables',
      level: 2,
      text: 'Tables',
    },
    {
      type: 'table',
      id: 'block-reference',
      headers: ['Block type', 'Required fields', 'Optional fields'],
      rows: [
        ['heading', 'level (2, 3 or 4), text', 'id'],
        ['paragraph', 'content', 'id'],
        ['list', 'ordered, items', 'id'],
        ['quote', 'content', 'id, attribution'],
        ['code', 'code', 'id, language'],
        ['image', 'url, alt', 'id, caption, width, height'],
        ['callout', 'variant (info, tip or warning), content', 'id'],
        ['cta', 'heading, buttonLabel, buttonHref', 'id, body'],
        ['faq', 'items (question, answer)', 'id'],
        ['table', 'headers, rows', 'id'],
        ['video', 'provider (youtube), videoId, url, title', 'id'],
      ],
    },
    {
      type: 'paragraph',
      id: 'tables-explained',
      content: [
        {
          text: 'A table has a row of header strings and rows of cell strings, all plain text. The reference above is one: it lists every block type with its fields. Render it in a scrolling container, because tables do not shrink gracefully on small screens.',
        },
      ],
    },
    {
      type: 'heading',
      id: 'videos',
      level: 2,
      text: 'Videos',
    },
    {
      type: 'video',
      id: 'video-example',
      provider: 'youtube',
      videoId: 'Zt3vWq8PmYc',
      url: 'https://www.youtube.com/watch?v=Zt3vWq8PmYc',
      title: 'Rendering Folio blocks in ten minutes',
    },
    {
      type: 'paragraph',
      id: 'videos-explained',
      content: [
        {
          text: 'Video blocks name a provider (YouTube is the only one), an 11-character video id, the watch URL and a title. Embedding is optional: a thumbnail that links to the ',
        },
        { text: 'url', code: true },
        { text: ' is lighter, and the title makes a good accessible name for either.' },
      ],
    },
    {
      type: 'heading',
      id: 'faq',
      level: 2,
      text: 'Frequently asked questions',
    },
    {
      type: 'faq',
      id: 'faq-example',
      items: [
        {
          question: 'What should a renderer do with a block type it does not know?',
          answer: [
            { text: 'Render nothing', bold: true },
            { text: ' and carry on. New block types may be added, and an older site should keep working.' },
          ],
        },
        {
          question: 'Are block ids unique?',
          answer: [
            {
              text: 'They are optional labels chosen by the author. Use them as anchors, but do not rely on every block having one.',
            },
          ],
        },
        {
          question: 'Does Folio generate FAQ structured data from this block?',
          answer: [
            { text: 'No. If you want a ' },
            { text: 'FAQPage', code: true },
            { text: ', set it in ' },
            { text: 'seo.jsonLd', code: true },
            { text: ', which is served exactly as given.' },
          ],
        },
      ],
    },
    {
      type: 'cta',
      id: 'cta-example',
      heading: 'Build your renderer against this article',
      body: 'Fetch it from /public/v1/fixtures/article, render every block, and compare the page with this one. No key is needed.',
      buttonLabel: 'Read the rendering guide',
      buttonHref: '/blog/rendering-text-runs-safely',
    },
  ],
};
