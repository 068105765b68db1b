import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Seo } from './generated/schema.ts';
import { serializeJsonLd } from './json-ld.ts';
import { canonicalUrl, type HeadArticle, renderHead } from './render-head.ts';

function article(seo: Partial<Seo> = {}): HeadArticle {
  return {
    title: 'Hello',
    publishedAt: '2026-11-20T10:00:00.000Z',
    updatedAt: '2026-11-21T09:30:00.000Z',
    seo: {
      title: 'Hello, world',
      description: 'A first post.',
      canonicalPath: '/blog/hello',
      ogTitle: 'Hello, world',
      ogDescription: 'A first post.',
      ogImage: 'https://cdn.example.com/cover.png',
      ogType: 'article',
      jsonLd: { '@context': 'https://schema.org', '@type': 'BlogPosting', headline: 'Hello, world' },
      ...seo,
    },
  };
}

/** The text of every ld+json script in `head`. */
function jsonLdScripts(head: string): string[] {
  return [...head.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
}

describe('renderHead', () => {
  it('renders every head tag of an article page', () => {
    const head = renderHead(article(), { origin: 'https://www.example.com', siteName: 'Example & Co' });
    assert.equal(
      head,
      [
        '<title>Hello, world</title>',
        '<meta name="description" content="A first post.">',
        '<link rel="canonical" href="https://www.example.com/blog/hello">',
        '<meta property="og:type" content="article">',
        '<meta property="og:title" content="Hello, world">',
        '<meta property="og:description" content="A first post.">',
        '<meta property="og:url" content="https://www.example.com/blog/hello">',
        '<meta property="og:image" content="https://cdn.example.com/cover.png">',
        '<meta property="og:site_name" content="Example &amp; Co">',
        '<meta property="article:published_time" content="2026-11-20T10:00:00.000Z">',
        '<meta property="article:modified_time" content="2026-11-21T09:30:00.000Z">',
        '<meta name="twitter:card" content="summary_large_image">',
        '<meta name="twitter:title" content="Hello, world">',
        '<meta name="twitter:description" content="A first post.">',
        '<meta name="twitter:image" content="https://cdn.example.com/cover.png">',
        '<script type="application/ld+json">{"@context":"https://schema.org","@type":"BlogPosting","headline":"Hello, world"}</script>',
      ].join('\n'),
    );
  });

  it('puts the title into titleTemplate for <title> only, escaped, and keeps $ patterns as text', () => {
    const head = renderHead(article({ title: 'Costs: $& and $1 <b>', ogTitle: '' }), {
      origin: 'https://www.example.com',
      siteName: 'Example',
      titleTemplate: '%s — Example & Co',
    });
    assert.match(head, /^<title>Costs: \$&amp; and \$1 &lt;b&gt; — Example &amp; Co<\/title>\n/);
    assert.match(head, /<meta property="og:title" content="Costs: \$&amp; and \$1 &lt;b&gt;">/);
    assert.match(head, /<meta name="twitter:title" content="Costs: \$&amp; and \$1 &lt;b&gt;">/);
    const plain = renderHead(article(), {
      origin: 'https://www.example.com',
      titleTemplate: 'No placeholder',
    });
    assert.match(plain, /^<title>No placeholder<\/title>/);
  });

  it('leaves out the published time of a preview article never published', () => {
    const head = renderHead({ ...article(), publishedAt: null }, { origin: 'https://www.example.com' });
    assert.doesNotMatch(head, /article:published_time/);
    assert.match(head, /<meta property="article:modified_time" content="2026-11-21T09:30:00.000Z">/);
  });

  it('leaves out og:image, twitter:image and og:site_name when absent', () => {
    const head = renderHead(article({ ogImage: null }), { origin: 'https://www.example.com' });
    assert.doesNotMatch(head, /og:image|twitter:image|og:site_name/);
    assert.match(head, /<meta name="twitter:card" content="summary">/);
  });

  it('resolves a site-path og:image against the origin and drops an unsafe one', () => {
    const relative = renderHead(article({ ogImage: '/img/a.png' }), {
      origin: 'https://example.com/any/path',
    });
    assert.match(relative, /<meta property="og:image" content="https:\/\/example\.com\/img\/a\.png">/);
    for (const ogImage of ['javascript:alert(1)', 'data:image/png;base64,AA', '//evil.example/a.png']) {
      assert.doesNotMatch(renderHead(article({ ogImage }), { origin: 'https://example.com' }), /og:image/);
    }
  });

  it('drops an og:image that passes the link rule but is no URL, rather than throwing', () => {
    // The block schema's host part is looser than a URL parser: ingest accepts these as an
    // image block's url, and the server serves the first one as ogImage.
    for (const ogImage of [
      'https://a<b.example/c.png',
      'https://cdn.example:99999/c.png',
      'http://[x]/c.png',
    ]) {
      const head = renderHead(article({ ogImage }), { origin: 'https://example.com' });
      assert.doesNotMatch(head, /og:image|twitter:image/);
      assert.match(head, /<meta name="twitter:card" content="summary">/);
    }
  });

  it('builds the canonical URL from the origin and canonicalPath, without a trailing slash', () => {
    const cases: [string, string, string][] = [
      ['https://www.example.com', '/blog/hello', 'https://www.example.com/blog/hello'],
      ['https://www.example.com/', '/blog/hello/', 'https://www.example.com/blog/hello'],
      ['https://www.example.com/ignored/path?q=1', '/my-post', 'https://www.example.com/my-post'],
      ['http://localhost:3000', '/blog/caf%C3%A9', 'http://localhost:3000/blog/caf%C3%A9'],
      ['https://EXAMPLE.com', 'no-leading-slash', 'https://example.com/no-leading-slash'],
      ['https://www.example.com', '/blog//a///', 'https://www.example.com/blog//a'],
      ['https://www.example.com', '///', 'https://www.example.com'],
      ['https://www.example.com', `${'/'.repeat(50_000)}x`, `https://www.example.com${'/'.repeat(50_000)}x`],
    ];
    for (const [origin, path, expected] of cases) {
      assert.equal(canonicalUrl(origin, path), expected);
      const head = renderHead(article({ canonicalPath: path }), { origin });
      const links = [...head.matchAll(/<link rel="canonical" href="([^"]*)">/g)];
      assert.equal(links.length, 1);
      assert.equal(links[0]![1], expected);
    }
  });

  it('refuses an origin that is not http(s)', () => {
    assert.throws(() => renderHead(article(), { origin: 'javascript:alert(1)' }), TypeError);
    // A missing scheme or an unset variable is named as the option, not as a bare "Invalid URL".
    const named = /^renderHead: origin must be an http\(s\) URL, got /;
    assert.throws(() => renderHead(article(), { origin: 'not a url' }), {
      name: 'TypeError',
      message: named,
    });
    assert.throws(() => renderHead(article(), { origin: 'www.example.com' }), { message: named });
    const unset = { origin: undefined as unknown as string };
    assert.throws(() => renderHead(article(), unset), { message: named });
  });

  it('escapes quotes and tags in every value', () => {
    const head = renderHead(
      article({ title: '"><script>alert(1)</script>', description: "' onload='x", ogTitle: '<b>' }),
      { origin: 'https://example.com', siteName: '"' },
    );
    assert.doesNotMatch(
      head.replace(/<script type="application\/ld\+json">[\s\S]*?<\/script>/, ''),
      /<script|<b>/,
    );
    assert.match(head, /<title>&quot;&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;<\/title>/);
    assert.match(head, /content="&#39; onload=&#39;x"/);
  });

  it('falls back to the article title when seo.title is empty', () => {
    assert.match(
      renderHead(article({ title: '', ogTitle: '' }), { origin: 'https://e.com' }),
      /<title>Hello<\/title>/,
    );
  });

  it('writes exactly one ld+json script that parses back to seo.jsonLd, even with </script> and <!--', () => {
    const jsonLd = {
      '@type': 'BlogPosting',
      headline: '</script><script>alert(1)</script>',
      description: '<!-- <script> -->',
      body: 'line\u2028separator\u2029paragraph </SCRIPT >',
      nested: [{ a: '<' }, '&lt;', '\\u003c'],
    };
    const head = renderHead(article({ jsonLd }), { origin: 'https://example.com' });
    assert.equal(head.match(/<script\b/gi)?.length, 1);
    assert.equal(head.match(/<\/script/gi)?.length, 1);
    const [content] = jsonLdScripts(head);
    assert.doesNotMatch(content!, /[<\u2028\u2029]/);
    assert.deepEqual(JSON.parse(content!), jsonLd);
  });

  it('leaves the script out when there is no jsonLd', () => {
    const head = renderHead(article({ jsonLd: undefined as unknown as Seo['jsonLd'] }), {
      origin: 'https://example.com',
    });
    assert.equal(jsonLdScripts(head).length, 0);
  });
});

describe('serializeJsonLd', () => {
  it('round-trips any JSON value and never contains <, U+2028 or U+2029', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const out = serializeJsonLd(value)!;
        assert.doesNotMatch(out, /[<\u2028\u2029]/);
        assert.deepEqual(JSON.parse(out), JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 500 },
    );
  });
});
