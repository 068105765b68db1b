import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { identifyPreviewToken } from '../services/preview-links.ts';
import { listEvents } from '../test/assertions.ts';
import { cliEnv, runFolio } from '../test/cli-runner.ts';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../test/databases.ts';

const paragraph = (text: string) => ({ type: 'paragraph', content: [{ text }] });
const ndjson = (lines: unknown[]) => `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
const DAY_MS = 86_400_000;
const inDays = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString();
const PREVIEW_URL = 'https://www.example.com/api/preview?slug={slug}&token={token}';

for (const dialect of DIALECTS) {
  describe(`folio editorial commands [${dialect}]`, () => {
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
        { id: 'live', slug: 'live', title: 'Live', blocks: [paragraph('Served')], published: true },
        { id: 'draft', slug: 'draft', title: 'Draft', blocks: [] },
        { id: 'live', draft: true, slug: 'live-2', title: 'Live, edited', blocks: [paragraph('New')] },
      ];
      fs.writeFileSync(path.join(dir, 'in.ndjson'), ndjson(lines));
      const imported = await folio('import', 'in.ndjson');
      assert.equal(imported.code, 0, imported.stdout);
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
    const articleRow = (id: string) =>
      database.db.selectFrom('articles').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    test('schedule sets, shows and clears times; a past time applies at once', async () => {
      const publishAt = inDays(2);
      const unpublishAt = inDays(9);
      const set = await folio(
        'articles',
        'schedule',
        'draft',
        '--publish-at',
        publishAt,
        '--unpublish-at',
        unpublishAt,
        '--json',
      );
      assert.equal(set.code, 0, set.stderr);
      assert.deepEqual(
        [set.json().publishAt, set.json().unpublishAt, set.json().published],
        [publishAt, unpublishAt, false],
      );
      assert.deepEqual(await eventsOf('draft'), [], 'nothing is published before its time');

      const list = await folio('articles', 'list');
      assert.match(
        list.stdout,
        new RegExp(
          `\\ndraft\\s+draft\\s+unpublished\\s+publishes ${publishAt}, unpublishes ${unpublishAt}\\s+\\S+\\s+Draft\\n`,
        ),
      );
      const got = await folio('articles', 'get', 'draft');
      assert.match(
        got.stdout,
        new RegExp(`\\n {2}schedule: +publishes ${publishAt}, unpublishes ${unpublishAt}\\n`),
      );

      // An offset is converted to UTC; "none" clears one time and keeps the other.
      const utc = new Date(Math.floor((Date.now() + 3 * DAY_MS) / 60_000) * 60_000);
      const typed = `${new Date(utc.getTime() + 2 * 3_600_000).toISOString().slice(0, 16)}+02:00`;
      const human = await folio('articles', 'schedule', 'draft', '--publish-at', typed);
      assert.equal(human.code, 0, human.stderr);
      assert.equal(human.stdout, `Article draft: publishes ${utc.toISOString()}. It is unpublished.\n`);
      const cleared = await folio('articles', 'schedule', 'draft', '--publish-at', 'none', '--json');
      assert.deepEqual([cleared.json().publishAt, cleared.json().unpublishAt], [null, unpublishAt]);
      assert.match(
        (await folio('articles', 'get', 'draft')).stdout,
        new RegExp(`schedule: +unpublishes ${unpublishAt}\\n`),
      );

      const past = await folio('articles', 'schedule', 'draft', '--publish-at', '2020-01-01T00:00Z');
      assert.equal(past.code, 0, past.stderr);
      assert.equal(
        past.stdout,
        'Article draft: published at once (2020-01-01T00:00:00.000Z has passed). It is published.\n',
      );
      assert.deepEqual(await eventsOf('draft'), ['content.created']);
      const now = await folio('articles', 'schedule', 'draft', '--unpublish-at', 'now', '--json');
      assert.deepEqual(
        [now.json().published, now.json().publishAt, now.json().unpublishAt],
        [false, null, null],
      );
      assert.deepEqual(await eventsOf('draft'), ['content.created', 'content.unpublished']);
    });

    test('a scheduled publish of a changed article publishes its draft', async () => {
      const run = await folio(
        'articles',
        'schedule',
        'live',
        '--publish-at',
        '2020-01-01T00:00:00Z',
        '--json',
      );
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(
        [run.json().slug, run.json().title, run.json().draft],
        ['live-2', 'Live, edited', null],
      );
      assert.deepEqual(await eventsOf('live'), ['content.created', 'content.updated']);
    });

    test('schedule refuses a bad time, an unpublish before the publish and a bad command line, writing nothing', async () => {
      await folio('articles', 'schedule', 'draft', '--publish-at', inDays(5));
      const before = await articleRow('draft');
      const events = (await listEvents(database.db)).length;
      const bad: [string[], string, string][] = [
        [
          ['--publish-at', 'tomorrow'],
          '--publish-at must be an ISO 8601 time with a time zone',
          '/publishAt',
        ],
        [
          ['--unpublish-at', '2099-11-20T10:00'],
          '--unpublish-at "2099-11-20T10:00" has no time zone',
          '/unpublishAt',
        ],
        [
          ['--publish-at', '2099-02-30T10:00Z'],
          '--publish-at "2099-02-30T10:00Z" is not a real date and time',
          '/publishAt',
        ],
        [['--publish-at', ''], '--publish-at must be an ISO 8601 time', '/publishAt'],
        [
          ['--publish-at', inDays(3), '--unpublish-at', inDays(2)],
          '--unpublish-at is earlier than --publish-at: an article cannot be unpublished before it is published.',
          '/unpublishAt',
        ],
        [
          ['--unpublish-at', inDays(1)],
          '--unpublish-at is earlier than the publish time already set (change it with --publish-at, or clear it with --publish-at none)',
          '/unpublishAt',
        ],
      ];
      for (const [flags, message, detailPath] of bad) {
        const run = await folio('articles', 'schedule', 'draft', ...flags, '--json');
        assert.equal(run.code, 1, `${flags.join(' ')}: ${run.stderr}`);
        assert.ok(run.stderr.startsWith(`folio articles schedule: ${message}`), run.stderr);
        assert.doesNotMatch(run.stderr, /publishAt/, "the flags' names, not the API's");
        assert.equal(run.json().error.code, 'invalid_body');
        assert.equal(run.json().error.details[0].path, detailPath);
      }
      const usage: [string[], RegExp][] = [
        [
          [],
          /^folio articles schedule: give --publish-at, --unpublish-at or both\nUsage: folio articles schedule ID/,
        ],
        [['--publish', inDays(1)], /Unknown option '--publish'/],
        [['--publish-at'], /--publish-at/],
      ];
      for (const [flags, stderr] of usage) {
        const run = await folio('articles', 'schedule', 'draft', ...flags);
        assert.equal(run.code, 2, flags.join(' '));
        assert.match(run.stderr, stderr);
      }
      const missing = await folio('articles', 'schedule', 'nope', '--publish-at', 'now', '--json');
      assert.equal(missing.code, 1);
      assert.equal(missing.json().error.code, 'not_found');
      assert.deepEqual(await articleRow('draft'), before, 'the schedule is as it was');
      assert.equal((await listEvents(database.db)).length, events);
    });

    test('get and list show a draft: the state is changed and get says what the draft changes', async () => {
      const list = await folio('articles', 'list');
      assert.match(list.stdout, /\nlive\s+live\s+changed\s+-\s+\S+\s+Live\n/);
      assert.match(list.stdout, /\ndraft\s+draft\s+unpublished\s+-\s+\S+\s+Draft\n/);
      const got = await folio('articles', 'get', 'live');
      assert.match(
        got.stdout,
        /^Live\n {2}id: +live\n {2}slug: +live\n {2}state: +changed \(first published \S+\)\n/,
      );
      assert.match(
        got.stdout,
        /\n {2}draft: +saved \S+; changes title, slug, blocks\n {14}title: +Live, edited\n {14}slug: +live-2\n {14}blocks: +1\n {2}schedule: +-\n/,
      );
      const json = (await folio('articles', 'get', 'live', '--json')).json();
      assert.deepEqual([json.draft.slug, json.draft.title, json.slug], ['live-2', 'Live, edited', 'live']);
      assert.match(
        (await folio('articles', 'get', 'draft')).stdout,
        /\n {2}state: +unpublished\n {2}draft: +-\n/,
      );

      const published = await folio('articles', 'publish', 'live', '--json');
      assert.deepEqual([published.json().slug, published.json().draft], ['live-2', null]);
      assert.match((await folio('articles', 'list')).stdout, /\nlive\s+live-2\s+published\s+-/);
    });

    test('preview-link: without a preview URL it says how to set one; with one it makes a working link', async () => {
      const none = await folio('articles', 'preview-link', 'live', '--json');
      assert.equal(none.code, 1);
      assert.equal(none.json().error.code, 'conflict');
      assert.equal(
        none.stderr,
        `folio articles preview-link: Project ${projectId} has no preview URL, so there is no link to make. Set the site's preview route with: folio projects update ${projectId} --preview-url 'https://www.example.com/api/preview?slug={slug}&token={token}'\n`,
      );
      assert.equal((await database.db.selectFrom('preview_tokens').selectAll().execute()).length, 0);

      const updated = await folio('projects', 'update', projectId, '--preview-url', PREVIEW_URL, '--json');
      assert.equal(updated.code, 0, updated.stderr);
      assert.equal(updated.json().previewUrl, PREVIEW_URL);
      const link = await folio('articles', 'preview-link', 'live', '--json');
      assert.equal(link.code, 0, link.stderr);
      const { url, token, expiresAt } = link.json();
      assert.match(token, /^folio_pt_/);
      assert.equal(url, `https://www.example.com/api/preview?slug=live-2&token=${encodeURIComponent(token)}`);
      const hour = Date.parse(expiresAt) - Date.now();
      assert.ok(hour > 59 * 60_000 && hour <= 60 * 60_000, expiresAt);
      const deps = { db: database.db, now: Date.now };
      const live = await identifyPreviewToken(deps, token);
      assert.deepEqual([live.projectId, live.articleId], [projectId, 'live']);

      const human = await folio('articles', 'preview-link', 'draft');
      assert.match(
        human.stdout,
        /^Preview link for article draft, valid until \S+Z:\n\n {2}https:\/\/www\.example\.com\/api\/preview\?slug=draft&token=folio_pt_\S+\n\n$/,
      );
      const missing = await folio('articles', 'preview-link', 'nope');
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /Article "nope" was not found/);
    });
  });
}
