import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { defaultComponents } from './default-components.ts';
import type { Block } from './generated/schema.ts';
import { html, raw } from './html.ts';
import { renderBlocks } from './render-blocks.ts';

const fixtureDir = new URL('./fixtures/render/', import.meta.url);
const fixtureFiles = readdirSync(fixtureDir)
  .filter((file) => file.endsWith('.json'))
  .sort();

describe('renderBlocks golden fixtures', () => {
  it('has numbered fixtures', () => {
    assert.ok(fixtureFiles.length >= 20);
    for (const file of fixtureFiles) assert.match(file, /^\d{3}-[a-z0-9-]+\.json$/);
  });
  for (const file of fixtureFiles) {
    const fixture = JSON.parse(readFileSync(new URL(file, fixtureDir), 'utf8')) as {
      name: string;
      input: unknown;
      output: string;
    };
    it(`${file}: ${fixture.name}`, () => {
      assert.equal(renderBlocks(fixture.input), fixture.output);
    });
  }
});

describe('renderBlocks', () => {
  it('renders nothing for a value that is not an array', () => {
    for (const value of [undefined, null, 'x', 1, {}, { length: 2 }]) assert.equal(renderBlocks(value), '');
  });

  it('uses a component override for its type only, with context helpers', () => {
    const blocks: Block[] = [
      { type: 'heading', level: 3, text: 'A <b>' },
      { type: 'paragraph', content: [{ text: 'x', href: 'javascript:1' }] },
    ];
    const out = renderBlocks(blocks, {
      components: {
        heading: (block, { html, index }) =>
          html`<h${block.level} data-i="${index}" class="t">${block.text}</h${block.level}>`,
      },
    });
    assert.equal(out, '<h3 data-i="0" class="t">A &lt;b&gt;</h3>\n<p>x</p>');
  });

  it('lets an override use renderText, safeHref, escape and raw', () => {
    const out = renderBlocks([{ type: 'cta', heading: 'H', buttonLabel: 'Go "now"', buttonHref: 'data:x' }], {
      components: {
        cta: (block, ctx) => {
          const href = ctx.safeHref(block.buttonHref) ?? '#';
          return `<div>${ctx.escape(block.buttonLabel)}<a href="${ctx.escape(href)}">${ctx.renderText([{ text: 'i', italic: true }])}</a>${ctx.raw('<hr>')}</div>`;
        },
      },
    });
    assert.equal(out, '<div>Go &quot;now&quot;<a href="#"><em>i</em></a><hr></div>');
  });

  it('hands a link component an href that cannot end its attribute, even unescaped', () => {
    // Ingest accepts this: an http(s) URL whose path holds quotes, as URLs may.
    const href = `https://x.example/"onmouseover="alert(1)"x='y'<b>\`c\``;
    const out = renderBlocks([{ type: 'paragraph', content: [{ text: 'x', href }] }], {
      link: ({ href, children }) => `<a class="l" href="${href}">${children}</a>`,
    });
    assert.equal(
      out,
      '<p><a class="l" href="https://x.example/%22onmouseover=%22alert(1)%22x=%27y%27%3Cb%3E%60c%60">x</a></p>',
    );
  });

  it('accepts SafeHtml from an override and drops empty output', () => {
    const out = renderBlocks(
      [
        { type: 'paragraph', content: [{ text: 'a' }] },
        { type: 'code', code: 'x' },
      ],
      { components: { paragraph: () => raw('<p>own</p>'), code: () => '' } },
    );
    assert.equal(out, '<p>own</p>');
  });

  it('lets an override wrap the default markup', () => {
    const out = renderBlocks([{ type: 'image', url: '/a.png', alt: 'A' }], {
      components: {
        image: (block, ctx) => ctx.html`<div class="frame">${defaultComponents.image(block, ctx)}</div>`,
      },
    });
    assert.equal(
      out,
      '<div class="frame"><figure><img src="/a.png" alt="A" fetchpriority="high"></figure></div>',
    );
  });

  it('tells an image override whether it is the image to load first', () => {
    const seen: [number, boolean][] = [];
    const out = renderBlocks(
      [
        { type: 'image', url: '/a.png', alt: 'A' },
        { type: 'image', url: '/b.png', alt: 'B' },
        { type: 'image', url: '/c.png', alt: 'C' },
      ],
      {
        components: {
          // The first override renders nothing, so the next image is still the one to load first.
          image: (block, { index, priority, html }) => {
            seen.push([index, priority]);
            return index === 0 ? '' : html`<img src="${block.url}" data-priority="${String(priority)}">`;
          },
        },
      },
    );
    assert.deepEqual(seen, [
      [0, true],
      [1, true],
      [2, false],
    ]);
    assert.equal(out, '<img src="/b.png" data-priority="true">\n<img src="/c.png" data-priority="false">');
  });

  it('loads every image lazily with eagerFirstImage: false', () => {
    const blocks: Block[] = [
      { type: 'image', url: '/a.png', alt: 'A', width: 800, height: 600 },
      { type: 'image', url: '/b.png', alt: 'B' },
    ];
    assert.equal(
      renderBlocks(blocks, { eagerFirstImage: false }),
      '<figure><img src="/a.png" alt="A" width="800" height="600" loading="lazy"></figure>\n' +
        '<figure><img src="/b.png" alt="B" loading="lazy"></figure>',
    );
  });

  it('renders links through a link component, only for safe hrefs', () => {
    const seen: string[] = [];
    const out = renderBlocks(
      [
        {
          type: 'paragraph',
          content: [
            { text: 'Docs', href: 'https://example.com/a?b=1&c=2', rel: 'noopener', bold: true },
            { text: ' bad', href: 'javascript:alert(1)' },
          ],
        },
        { type: 'list', ordered: false, items: [[{ text: 'home', href: '/' }]] },
      ],
      {
        link: ({ href, rel, children }) => {
          seen.push(href);
          return html`<a class="ext" href="${href}" rel="${rel ?? 'x'}" target="_blank">${children}</a>`;
        },
      },
    );
    assert.equal(
      out,
      '<p><a class="ext" href="https://example.com/a?b=1&amp;c=2" rel="noopener" target="_blank"><strong>Docs</strong></a> bad</p>\n' +
        '<ul><li><a class="ext" href="/" rel="x" target="_blank">home</a></li></ul>',
    );
    assert.deepEqual(seen, ['https://example.com/a?b=1&c=2', '/']);
  });

  it('never hands a malformed block to an override', () => {
    let calls = 0;
    renderBlocks([{ type: 'heading', level: 9, text: 'x' }], {
      components: {
        heading: () => {
          calls++;
          return '';
        },
      },
    });
    assert.equal(calls, 0);
  });

  it('reports skipped blocks through onSkip', () => {
    const skipped: [unknown, number, string][] = [];
    renderBlocks([{ type: 'paragraph', content: [] }, { type: 'slider' }, { type: 'heading' }, 7], {
      onSkip: (block, index, problem) => skipped.push([block, index, problem]),
    });
    assert.deepEqual(skipped, [
      [{ type: 'slider' }, 1, 'unknown_type'],
      [{ type: 'heading' }, 2, 'malformed'],
      [7, 3, 'malformed'],
    ]);
  });

  it('does not read inherited properties as block types', () => {
    assert.equal(renderBlocks([{ type: 'constructor' }, { type: 'hasOwnProperty' }]), '');
  });

  it('never throws, whatever it is given', () => {
    fc.assert(
      fc.property(
        fc.array(fc.anything({ withObjectString: true, withNullPrototype: true, withSparseArray: true })),
        (values) => {
          assert.equal(typeof renderBlocks(values), 'string');
        },
      ),
      { numRuns: 500 },
    );
  });

  it('never throws on blocks with a known type and arbitrary fields', () => {
    const types = [
      'heading',
      'paragraph',
      'list',
      'quote',
      'code',
      'image',
      'callout',
      'cta',
      'faq',
      'table',
      'video',
    ];
    const block = fc
      .record({ type: fc.constantFrom(...types) })
      .chain((base) =>
        fc
          .dictionary(
            fc.constantFrom(
              'level',
              'text',
              'content',
              'items',
              'ordered',
              'url',
              'alt',
              'width',
              'height',
              'variant',
              'rows',
              'headers',
              'videoId',
              'provider',
              'title',
              'heading',
              'buttonLabel',
              'buttonHref',
              'code',
              'language',
            ),
            fc.anything({ withSparseArray: true }),
          )
          .map((fields) => ({ ...fields, ...base })),
      );
    fc.assert(
      fc.property(fc.array(block), (blocks) => {
        assert.equal(typeof renderBlocks(blocks), 'string');
      }),
      { numRuns: 500 },
    );
  });
});
