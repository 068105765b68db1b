import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { ArticleInput } from '@folio/schema';
import { createInputValidator } from '../../cli/validate.ts';
import { assertError, assertInvalidBody, countRows, type RowCounts } from '../../test/assertions.ts';
import { DIALECTS } from '../../test/databases.ts';
import { createTestApp, newArticle, paragraph, TEST_BASE_URL, type TestApp } from '../../test/test-app.ts';

const LONE_HIGH = '\ud800';
const LONE_LOW = '\udc00';

// Controls (Cc) beyond ASCII and format characters (Cf): zero-width, bidi controls, BOM.
const REFUSED_IN_SLUGS: [string, string][] = [
  ['U+0085 next line', '\u0085'],
  ['U+009F application program command', '\u009f'],
  ['U+200B zero width space', '\u200b'],
  ['U+202E right-to-left override', '\u202e'],
  ['U+2066 left-to-right isolate', '\u2066'],
  ['U+FEFF byte order mark', '\ufeff'],
  ['U+00AD soft hyphen', '\u00ad'],
];

for (const dialect of DIALECTS) {
  describe(`management API: slug rules and unstorable text [${dialect}]`, () => {
    let t: TestApp;
    let projectId: string;
    let key: string;
    let before: RowCounts;
    beforeEach(async () => {
      t = await createTestApp(dialect);
      projectId = (await t.createProject({ websiteUrl: 'https://www.example.com', articlesPath: '/blog' }))
        .id;
      key = await t.createKey(projectId);
      before = await countRows(t.db);
    });
    afterEach(() => t.close());

    const one = (id: string) => `/admin/v1/projects/${projectId}/articles/${id}`;
    // `inject` sends JSON.stringify's text, which writes a lone surrogate as a `\ud800` escape.
    const put = (id: string, body: unknown) => t.admin('PUT', one(id), body);
    const bySlug = (slug: string) =>
      t.deliver(key, `/api/v1/projects/${projectId}/content/by-slug/${encodeURIComponent(slug)}`);

    async function assertNothingWritten(what: string) {
      assert.deepEqual(await countRows(t.db), before, `${what}: a refused request wrote something`);
    }

    test('a lone surrogate in the slug, a related slug, the title or text answers 400 naming it, never 500', async () => {
      const cases: [ArticleInput, string][] = [
        [newArticle({ slug: `a${LONE_HIGH}` }), '/slug'],
        [newArticle({ slug: `${LONE_LOW}b` }), '/slug'],
        [newArticle({ related: ['fine', `x${LONE_HIGH}`] }), '/related/1'],
        [newArticle({ title: `Title ${LONE_HIGH}` }), '/title'],
        [
          newArticle({ blocks: [paragraph('ok'), paragraph(`broken ${LONE_LOW} text`)] }),
          '/blocks/1/content/0/text',
        ],
        [newArticle({ seo: { jsonLd: { [`k${LONE_HIGH}`]: 1 } } }), `/seo/jsonLd/k${LONE_HIGH}`],
      ];
      for (const [body, path] of cases) {
        const response = await put('lone', body);
        assertInvalidBody(response, path, path);
        assert.match(response.json().error.message, /lone surrogate/, path);
      }
      await assertNothingWritten('lone surrogates');
    });

    test('a lone surrogate is refused in any JSON body, not only articles', async () => {
      const response = await t.admin('POST', '/admin/v1/projects', { name: `Blog ${LONE_HIGH}` });
      assertInvalidBody(response, '/name');
      await assertNothingWritten('project name');
    });

    test('titles and text keep what was sent: valid pairs, decomposed forms and format characters', async () => {
      const title = `Cafe\u0301 \u{1F600} a\u200bb \u202eevil`;
      const text = `e\u0301 \u2066isolated\u2069`;
      const response = await put('kept', newArticle({ slug: 'kept', title, blocks: [paragraph(text)] }));
      assert.equal(response.statusCode, 201, response.body);
      const stored = (await t.admin('GET', one('kept'))).json().data;
      assert.equal(stored.title, title);
      assert.deepEqual(stored.blocks, [paragraph(text)]);
    });

    for (const [name, character] of REFUSED_IN_SLUGS) {
      test(`a slug holding ${name} answers 400 naming the slug`, async () => {
        for (const slug of [`a${character}b`, character, `${character}a`]) {
          assertInvalidBody(
            await put('ctl', newArticle({ slug })),
            '/slug',
            `${name} in ${JSON.stringify(slug)}`,
          );
        }
        assertInvalidBody(await put('ctl', newArticle({ related: [`a${character}`] })), '/related/0', name);
        await assertNothingWritten(name);
      });
    }

    test('the slugs "." and ".." answer 400; other dotted slugs are fine', async () => {
      for (const slug of ['.', '..']) {
        assertInvalidBody(await put('dots', newArticle({ slug })), '/slug', slug);
        assertInvalidBody(await put('dots', newArticle({ related: ['ok', slug] })), '/related/1', slug);
      }
      await assertNothingWritten('dots');
      for (const [i, slug] of ['...', 'a.b', '.a', 'a..', '.well-known'].entries()) {
        const response = await put(`dots-${i}`, newArticle({ slug, related: [slug], published: true }));
        assert.equal(response.statusCode, 201, `${slug}: ${response.body}`);
        const served = await bySlug(slug);
        assert.equal(served.statusCode, 200, `${slug}: ${served.body}`);
        assert.equal(served.json().data.seo.canonicalPath, `/blog/${encodeURIComponent(slug)}`);
      }
    });

    test('a slug sent decomposed is stored, served and kept unique in NFC', async () => {
      const decomposed = 'cafe\u0301';
      const composed = 'caf\u00e9';
      const input = newArticle({ slug: decomposed, published: true });
      const created = await put('cafe', input);
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(created.json().data.slug, composed);
      assert.equal((await t.admin('GET', one('cafe'))).json().data.slug, composed);

      const taken = await put('other', newArticle({ slug: composed }));
      const error = assertError(taken, 409, 'conflict', 'the composed form of a taken slug');
      assert.deepEqual(
        error.details?.map((detail) => detail.path),
        ['/slug'],
      );
      assertError(
        await put('other', newArticle({ slug: decomposed })),
        409,
        'conflict',
        'the same form again',
      );

      for (const form of [composed, decomposed]) {
        const served = await bySlug(form);
        assert.equal(served.statusCode, 200, `${JSON.stringify(form)}: ${served.body}`);
        assert.equal(served.json().data.id, 'cafe');
        assert.equal(served.json().data.slug, composed);
        assert.equal(served.json().data.seo.canonicalPath, `/blog/${encodeURIComponent(composed)}`);
      }
      // Sending the decomposed form again changes nothing served.
      t.clock.advance(60_000);
      const again = await put('cafe', input);
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.json().data.updatedAt, created.json().data.updatedAt);
    });

    test('the 200-character limit holds after NFC, for the slug, a related slug and a draft', async () => {
      // U+0958 is one character that NFC writes as two.
      const grows = '\u0958'.repeat(101);
      assert.equal([...grows.normalize('NFC')].length, 202);
      assertInvalidBody(await put('long', newArticle({ slug: grows })), '/slug');
      assertInvalidBody(await put('long', newArticle({ related: ['ok', grows] })), '/related/1');
      assertInvalidBody(await t.admin('PUT', `${one('long')}/draft`, newArticle({ slug: grows })), '/slug');
      await assertNothingWritten('a slug over the limit once normalized');
      const fits = '\u0958'.repeat(100);
      const stored = await put('long', newArticle({ slug: fits, published: true }));
      assert.equal(stored.statusCode, 201, stored.body);
      assert.equal([...stored.json().data.slug].length, 200);
    });

    test('the limit counts the NFC form: a long slug sent decomposed fits as it does composed', async () => {
      // Each é sent as e + U+0301, each Hangul syllable here as its three jamo.
      const latin = 'e\u0301'.repeat(200);
      const hangul = '\ud55c\uae00'.repeat(50).normalize('NFD');
      assert.equal([...hangul].length, 300);
      const created = await put('latin', newArticle({ slug: latin, related: [hangul], published: true }));
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(created.json().data.slug, latin.normalize('NFC'));
      assert.deepEqual(created.json().data.related, [hangul.normalize('NFC')]);
      const draft = await t.admin('PUT', `${one('hangul')}/draft`, newArticle({ slug: hangul }));
      assert.equal(draft.statusCode, 201, draft.body);
      assert.equal(draft.json().data.draft.slug, hangul.normalize('NFC'));
      assert.equal((await bySlug(latin.normalize('NFC'))).statusCode, 200);
      // One more character, composed or not, is over the limit.
      assertInvalidBody(await put('over', newArticle({ slug: `${latin}e\u0301` })), '/slug');
      assertInvalidBody(await put('over', newArticle({ slug: 'x'.repeat(201) })), '/slug');
    });

    test('related slugs are stored in NFC and find their article', async () => {
      await t.putArticle(
        projectId,
        'cafe',
        newArticle({ slug: 'caf\u00e9', title: 'Café', published: true }),
      );
      const response = await put(
        'menu',
        newArticle({ slug: 'menu', related: ['cafe\u0301'], published: true }),
      );
      assert.equal(response.statusCode, 201, response.body);
      assert.deepEqual(response.json().data.related, ['caf\u00e9']);
      const served = (await bySlug('menu')).json();
      assert.deepEqual(
        served.data.related.map((link: { id: string }) => link.id),
        ['cafe'],
      );
    });

    test('the CLI import refuses the same slugs with the same details as HTTP', async () => {
      const validator = createInputValidator(TEST_BASE_URL);
      const bad = [
        newArticle({ slug: '..' }),
        newArticle({ slug: 'a\u202eb' }),
        newArticle({ slug: `a${LONE_HIGH}` }),
        newArticle({ related: ['\u0085'] }),
        newArticle({ title: `t${LONE_LOW}` }),
      ];
      for (const article of bad) {
        const response = await put('cli', article);
        assert.equal(response.statusCode, 400, response.body);
        assert.deepEqual(
          validator.articleLineProblems({ id: 'cli', ...article }),
          response.json().error.details,
          JSON.stringify(article),
        );
      }
    });
  });
}
