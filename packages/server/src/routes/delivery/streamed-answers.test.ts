import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { WHOLE_ANSWER_BYTES } from '../../http/send-json.ts';
import { DIALECTS } from '../../test/databases.ts';
import { createTestApp, newArticle, paragraph, type TestApp } from '../../test/test-app.ts';

// Three of these make a list or a changes page larger than an answer sent whole.
const LARGE_BLOCKS = Array.from({ length: 200 }, (_, i) =>
  paragraph(`${i} ${'words of a long article '.repeat(90)}`),
);

for (const dialect of DIALECTS) {
  describe(`answers streamed past ${WHOLE_ANSWER_BYTES} bytes [${dialect}]`, () => {
    let t: TestApp;
    let projectId: string;
    let contentKey: string;
    let previewKey: string;
    beforeEach(async () => {
      t = await createTestApp(dialect);
      projectId = (await t.createProject()).id;
      contentKey = await t.createKey(projectId);
      previewKey = await t.createKey(projectId, 'preview');
      for (const id of ['a', 'b', 'c']) {
        const put = await t.putArticle(
          projectId,
          id,
          newArticle({ slug: id, blocks: LARGE_BLOCKS, published: true }),
        );
        assert.equal(put.statusCode, 201, put.body);
      }
    });
    afterEach(() => t.close());

    const base = () => `/api/v1/projects/${projectId}/content`;

    test('a large preview list is untagged: a draft saved since is never answered 304', async () => {
      const first = await t.deliver(previewKey, `${base()}?limit=100`);
      assert.equal(first.statusCode, 200);
      assert.ok(first.rawPayload.length > WHOLE_ANSWER_BYTES, String(first.rawPayload.length));
      assert.equal(first.json().data.length, 3);
      const draft = await t.admin('PUT', `/admin/v1/projects/${projectId}/articles/b/draft`, {
        slug: 'b',
        title: 'The draft',
        blocks: LARGE_BLOCKS,
      });
      assert.equal(draft.statusCode, 200, draft.body);
      const again = await t.deliver(previewKey, `${base()}?limit=100`, {
        'if-none-match': String(first.headers.etag ?? '"none"'),
      });
      assert.equal(again.statusCode, 200);
      const titles = again.json().data.map((article: { title: string }) => article.title);
      assert.ok(titles.includes('The draft'), JSON.stringify(titles));
    });

    test('a large changes page is tagged for its polling bucket: the next bucket is not 304', async () => {
      const first = await t.deliver(contentKey, `${base()}/changes`);
      assert.equal(first.statusCode, 200);
      assert.ok(first.rawPayload.length > WHOLE_ANSWER_BYTES, String(first.rawPayload.length));
      const tag = String(first.headers.etag);
      // Within the bucket, the same bytes: 304.
      const same = await t.deliver(contentKey, `${base()}/changes`, { 'if-none-match': tag });
      assert.equal(same.statusCode, 304);
      // In the next, a cursor issued then: other bytes, another tag.
      t.clock.advance(61_000);
      const next = await t.deliver(contentKey, `${base()}/changes`, { 'if-none-match': tag });
      assert.equal(next.statusCode, 200);
      assert.notEqual(next.headers.etag, tag);
      assert.notEqual(next.json().data.cursor, first.json().data.cursor);
      assert.equal(next.json().data.changes.length, 3);
    });
  });
}
