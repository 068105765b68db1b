import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { listEvents } from '../test/assertions.ts';
import { cliEnv, runFolio } from '../test/cli-runner.ts';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../test/databases.ts';

const paragraph = (text: string) => ({ type: 'paragraph', content: [{ text }] });

for (const dialect of DIALECTS) {
  describe(`folio articles [${dialect}]`, () => {
    let database: TestDatabase;
    let env: Record<string, string>;
    let dir: string;
    let projectId: string;
    beforeEach(async () => {
      database = await createTestDatabase(dialect);
      env = cliEnv(database);
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-cli-'));
      const created = await folio('projects', 'create', '--name', 'Blog', '--json');
      assert.equal(created.code, 0, created.stderr);
      projectId = created.json().id;
      const lines = [
        { id: 'one', slug: 'first', title: 'First steps', blocks: [paragraph('One')], published: true },
        { id: 'two', slug: 'second', title: 'Second thoughts', blocks: [] },
        {
          id: 'three',
          slug: 'third',
          title: 'Third time',
          blocks: [paragraph('Three')],
          related: ['first'],
          seo: { jsonLd: { '@context': 'https://schema.org', '@type': 'Article' } },
        },
      ];
      fs.writeFileSync(path.join(dir, 'in.ndjson'), lines.map((line) => JSON.stringify(line)).join('\n'));
      assert.equal((await folio('import', 'in.ndjson')).code, 0);
    });
    afterEach(async () => {
      await database.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    const folio = (...argv: string[]) => runFolio(env, argv, { cwd: dir });
    const eventsOf = async (id: string) =>
      (await listEvents(database.db))
        .filter((event) => event.payload.data.id === id)
        .map((event) => event.type);

    test('list shows every article, published or not, with its state; --search and pages narrow it', async () => {
      const listed = await folio('articles', 'list', '--json');
      assert.equal(listed.code, 0, listed.stderr);
      assert.equal(listed.json().pagination.total, 3);
      assert.deepEqual(
        listed
          .json()
          .data.map((a: { id: string; published: boolean }) => [a.id, a.published])
          .sort(),
        [
          ['one', true],
          ['three', false],
          ['two', false],
        ],
      );
      const human = await folio('articles', 'list');
      assert.match(human.stdout, /^ID\s+SLUG\s+STATE\s+SCHEDULE\s+UPDATED\s+TITLE\n/);
      assert.match(human.stdout, /\none\s+first\s+published\s+-\s+\S+\s+First steps\n/);
      assert.match(human.stdout, /\ntwo\s+second\s+unpublished\s+-\s+\S+\s+Second thoughts\n/);
      assert.match(human.stdout, /\(page 1 of 1, 3 in all\)\n$/);

      const search = await folio('articles', 'list', '--search', 'thoughts', '--json');
      assert.deepEqual(
        search.json().data.map((a: { id: string }) => a.id),
        ['two'],
      );
      assert.match((await folio('articles', 'list', '--search', 'nothing')).stdout, /No article title/);
      const page = await folio('articles', 'list', '--limit', '2', '--page', '2', '--json');
      assert.deepEqual(
        [page.json().data.length, page.json().pagination.totalPages, page.json().pagination.hasPrev],
        [1, 2, true],
      );
      const wrong = await folio('articles', 'list', '--limit', 'ten');
      assert.equal(wrong.code, 2);
      assert.match(wrong.stderr, /--limit must be a whole number/);
    });

    test('get shows one article; an unknown id is exit 1 with not_found', async () => {
      const got = await folio('articles', 'get', 'three', '--json');
      assert.equal(got.code, 0, got.stderr);
      const article = got.json();
      assert.deepEqual(
        [article.id, article.slug, article.title, article.related, article.published],
        ['three', 'third', 'Third time', ['first'], false],
      );
      assert.deepEqual(article.blocks, [paragraph('Three')]);
      const human = await folio('articles', 'get', 'three');
      assert.match(human.stdout, /^Third time\n {2}id: +three\n {2}slug: +third\n {2}state: +unpublished\n/);
      assert.match(human.stdout, /\n {2}blocks: +1 \(paragraph\)\n {2}related: +first\n/);
      // The ingested JSON-LD is an object: shown as JSON.
      assert.match(
        human.stdout,
        / {2}seo: +jsonLd: \{"@context":"https:\/\/schema\.org","@type":"Article"\}\n/,
      );
      assert.doesNotMatch(human.stdout, /\[object Object\]/);

      const missing = await folio('articles', 'get', 'nope', '--json');
      assert.equal(missing.code, 1);
      assert.equal(missing.json().error.code, 'not_found');
      assert.equal(missing.stderr, 'folio articles get: Article "nope" was not found.\n');
    });

    test('a slug given for an id is exit 1, naming the id of the article that holds it', async () => {
      for (const command of ['get', 'publish', 'unpublish', 'preview-link', 'delete']) {
        const run = await folio('articles', command, 'second', '--json');
        assert.equal(run.code, 1, command);
        assert.equal(run.json().error.code, 'not_found');
        assert.equal(
          run.stderr,
          `folio articles ${command}: Article "second" was not found. "second" is the slug of article two; give its id: folio articles ${command} two\n`,
        );
      }
      const schedule = await folio('articles', 'schedule', 'second', '--publish-at', 'now');
      assert.equal(schedule.code, 1);
      assert.match(
        schedule.stderr,
        /"second" is the slug of article two; give its id: folio articles schedule two\n$/,
      );
      const article = await folio('articles', 'get', 'two', '--json');
      assert.deepEqual(
        [article.json().published, article.json().publishAt],
        [false, null],
        'nothing changed',
      );
    });

    test('publish, unpublish and delete change the state and record the events the API records', async () => {
      const published = await folio('articles', 'publish', 'two', '--json');
      assert.equal(published.code, 0, published.stderr);
      assert.equal(published.json().published, true);
      assert.ok(published.json().publishedAt);
      assert.deepEqual(await eventsOf('two'), ['content.created']);
      const again = await folio('articles', 'publish', 'two');
      assert.equal(again.stdout, 'Published two ("Second thoughts", slug second).\n');
      assert.deepEqual(await eventsOf('two'), ['content.created'], 'publishing again is a no-op');

      const unpublished = await folio('articles', 'unpublish', 'two', '--json');
      assert.equal(unpublished.code, 0, unpublished.stderr);
      assert.equal(unpublished.json().published, false);
      assert.deepEqual(await eventsOf('two'), ['content.created', 'content.unpublished']);
      assert.match((await folio('articles', 'unpublish', 'two')).stdout, /no longer served/);

      const deleted = await folio('articles', 'delete', 'one', '--json');
      assert.equal(deleted.code, 0, deleted.stderr);
      assert.deepEqual(deleted.json(), { id: 'one', deleted: true });
      assert.deepEqual(await eventsOf('one'), ['content.created', 'content.deleted']);
      assert.equal((await folio('articles', 'get', 'one')).code, 1);
      const twice = await folio('articles', 'delete', 'one');
      assert.equal(twice.code, 1);
      assert.equal(twice.stderr, 'folio articles delete: Article "one" was not found.\n');
      assert.equal((await folio('articles', 'list', '--json')).json().pagination.total, 2);
    });

    test('--project picks the project; with several projects it is required', async () => {
      const other = await folio('projects', 'create', '--name', 'Other', '--json');
      const ambiguous = await folio('articles', 'list');
      assert.equal(ambiguous.code, 2);
      assert.match(ambiguous.stderr, /--project is required: there are 2 projects/);
      const empty = await folio('articles', 'list', '--project', other.json().id);
      assert.equal(empty.code, 0);
      assert.match(empty.stdout, /^No articles yet\. Add some with: folio import FILE/);
      const blog = await folio('articles', 'publish', 'two', '--project', projectId, '--json');
      assert.equal(blog.code, 0, blog.stderr);
      const wrongProject = await folio('articles', 'get', 'two', '--project', other.json().id);
      assert.equal(wrongProject.code, 1, "another project's article is not found");
      const unknown = await folio('articles', 'delete', 'two', '--project', 'prj_nope', '--json');
      assert.equal(unknown.json().error.code, 'not_found');
      assert.match(unknown.stderr, /Project "prj_nope" was not found/);
    });
  });
}
