import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { renderBlocks } from './render-blocks.ts';

/**
 * XSS corpus for the renderer. Rather than comparing strings, each output is parsed with a
 * strict grammar of the markup the renderer may produce: any other tag, attribute or stray
 * `<`/`>` fails, and every href/src is decoded and checked against seed rule 2.
 */

const TAGS = new Set(
  'p strong em code a h2 h3 h4 ul ol li blockquote figure figcaption cite pre img aside section details summary div table thead tbody tr th td iframe'.split(
    ' ',
  ),
);
const ATTRIBUTES = new Set(
  'href rel src alt loading fetchpriority class role title width height allow referrerpolicy allowfullscreen scope'.split(
    ' ',
  ),
);
const TAG = /<(\/?)([a-z0-9]+)((?: [a-z]+(?:="[^"<>]*")?)*)>/g;
const ATTRIBUTE = / ([a-z]+)(?:="([^"<>]*)")?/g;
const SAFE_URL = /^(?:https?:\/\/[^\s\\/?#]+(?:[/?#][^\s\\]*)?|\/(?![/\\])[^\s\\]*|#[^\s\\]*)$/i;

function decode(value: string): string {
  return value.replace(
    /&(amp|lt|gt|quot|#39);/g,
    (_, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[name]!,
  );
}

function assertSafeMarkup(out: string): void {
  for (const [, , name, attributes] of out.matchAll(TAG)) {
    assert.ok(TAGS.has(name!), `unexpected tag <${name}> in ${out}`);
    for (const [, attribute, value] of attributes!.matchAll(ATTRIBUTE)) {
      assert.ok(ATTRIBUTES.has(attribute!), `unexpected attribute ${attribute} in ${out}`);
      assert.doesNotMatch(value ?? '', /&(?!amp;|lt;|gt;|quot;|#39;)/, 'a bare & in an attribute');
      if (attribute === 'href' || attribute === 'src') {
        const url = decode(value ?? '');
        assert.match(url, SAFE_URL, `unsafe ${attribute} ${url}`);
        if (name === 'iframe') assert.match(url, /^https:\/\/www\.youtube-nocookie\.com\/embed\/[\w-]{11}$/);
      }
    }
  }
  const text = out.replace(TAG, '');
  assert.doesNotMatch(text, /[<>]/, `stray markup in ${out}`);
  assert.doesNotMatch(text, /&(?!amp;|lt;|gt;|quot;|#39;)/, `unescaped & in ${out}`);
}

const UNSAFE_HREFS = [
  'javascript:alert(1)',
  'JavaScript:alert(1)',
  'JAVASCRIPT:alert(1)',
  'jAvAsCrIpT:alert(1)',
  ' javascript:alert(1)',
  '\tjavascript:alert(1)',
  '\njavascript:alert(1)',
  '\u0000javascript:alert(1)',
  '\u0001javascript:alert(1)',
  '\u00a0javascript:alert(1)',
  'java\tscript:alert(1)',
  'java\nscript:alert(1)',
  'java\rscript:alert(1)',
  'java\u0000script:alert(1)',
  'javascript\t:alert(1)',
  '&#106;avascript:alert(1)',
  '&#x6A;avascript:alert(1)',
  '&#0000106&#0000097vascript:alert(1)',
  'javascript&colon;alert(1)',
  '%6Aavascript:alert(1)',
  'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
  'DATA:text/html,<script>alert(1)</script>',
  'Data:image/svg+xml,<svg onload=alert(1)>',
  'vbscript:msgbox(1)',
  'VBScript:msgbox(1)',
  'vbScRiPt:msgbox(1)',
  'file:///etc/passwd',
  'blob:https://example.com/uuid',
  'mailto:a@example.com',
  'tel:+100',
  'ftp://example.com',
  '//evil.example',
  '//evil.example/path',
  '///evil.example',
  '/\\evil.example',
  '\\\\evil.example',
  '\\/evil.example',
  '/\t/evil.example',
  'https:evil.example',
  'https:/evil.example',
  'http:\\\\evil.example',
  'http://evil.example\\@good.example',
  'https://evil.example /x',
  'relative/path',
  '',
  ' ',
];

const SAFE_HREFS_WITH_QUOTES = [
  'https://example.com/"onmouseover="alert(1)',
  "https://example.com/'onmouseover='alert(1)",
  '#"><script>alert(1)</script>',
  '/a"><img/src=x/onerror=alert(1)>',
  "/a'><svg/onload=alert(1)>",
  'https://example.com/?q=<script>&x="1"',
];

const TEXT_PAYLOADS = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '"><svg/onload=alert(1)>',
  "'><iframe src=javascript:alert(1)>",
  '<!-- comment',
  '-->',
  '</p></section><script>alert(1)</script>',
  '<![CDATA[x]]>',
  '&lt;script&gt;',
  '&#60;script&#62;',
  '<style>*{display:none}</style>',
  '<a href="javascript:alert(1)">x</a>',
  '\u0000<\u2028>\u2029',
];

function blocksWithEverywhere(text: string, href: string): unknown[] {
  const run = { text, href, rel: text, bold: true, italic: true, code: true };
  return [
    { type: 'heading', level: 2, text },
    { type: 'paragraph', content: [run, { text }] },
    { type: 'list', ordered: true, items: [[run], [{ text }]] },
    { type: 'quote', content: [run], attribution: text },
    { type: 'code', code: text, language: text },
    { type: 'image', url: href, alt: text, caption: text, width: 640, height: 480 },
    { type: 'callout', variant: 'warning', content: [run] },
    { type: 'cta', heading: text, body: text, buttonLabel: text, buttonHref: href },
    { type: 'faq', items: [{ question: text, answer: [run] }] },
    { type: 'table', headers: [text], rows: [[text, text]] },
    { type: 'video', provider: 'youtube', videoId: text, url: href, title: text },
    { type: 'video', provider: 'youtube', videoId: 'dQw4w9WgXcQ', url: href, title: text },
  ];
}

describe('renderer XSS corpus', () => {
  for (const href of UNSAFE_HREFS) {
    it(`refuses the link ${JSON.stringify(href)} everywhere`, () => {
      const out = renderBlocks(blocksWithEverywhere('label', href));
      assertSafeMarkup(out);
      assert.doesNotMatch(out, /<a /, 'no link is rendered');
      assert.doesNotMatch(out, /<img /, 'no image is rendered');
      assert.match(out, /label/, 'the text of the refused link is kept');
    });
  }

  for (const href of SAFE_HREFS_WITH_QUOTES) {
    it(`keeps ${JSON.stringify(href)} inside its attribute`, () => {
      const out = renderBlocks(blocksWithEverywhere('label', href));
      assertSafeMarkup(out);
      assert.match(out, /<a href="[^"]*"/);
    });
  }

  for (const text of TEXT_PAYLOADS) {
    it(`escapes ${JSON.stringify(text)} in every text field`, () => {
      const out = renderBlocks(blocksWithEverywhere(text, '/safe'));
      assertSafeMarkup(out);
      assert.doesNotMatch(
        out,
        /<script|<svg|<style|<!--|<img (?!src="\/safe")|<iframe (?!src="https:\/\/www\.youtube-nocookie)/i,
      );
    });
  }

  it('the checker itself rejects injected markup', () => {
    assert.throws(() => assertSafeMarkup('<p><script>x</script></p>'));
    assert.throws(() => assertSafeMarkup('<a href="javascript:x">x</a>'));
    assert.throws(() => assertSafeMarkup('<a href="//evil.example">x</a>'));
    assert.throws(() => assertSafeMarkup('<p onclick="x">x</p>'));
    assert.throws(() => assertSafeMarkup('<p>a < b</p>'));
    assert.throws(() => assertSafeMarkup('<img src="x" alt="a"b">'));
  });

  it('holds for arbitrary text, hrefs and rels', () => {
    const text = fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom(...TEXT_PAYLOADS));
    const href = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.webUrl(),
      fc.constantFrom(...UNSAFE_HREFS, ...SAFE_HREFS_WITH_QUOTES),
    );
    fc.assert(
      fc.property(text, href, (t, h) => {
        assertSafeMarkup(renderBlocks(blocksWithEverywhere(t, h)));
      }),
      { numRuns: 1000 },
    );
  });
});
