import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { countRows, listEvents } from '../test/assertions.ts';
import { cliEnv, runFolio } from '../test/cli-runner.ts';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../test/databases.ts';
import { createTestApp } from '../test/test-app.ts';

const paragraph = (text: string) => ({ type: 'paragraph', content: [{ text }] });
const ndjson = (lines: unknown[]) => `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

for (const dialect of DIALECTS) {
  describe(`folio import and export of drafts and schedules [${dialect}]`, () => {
    let database: TestDatabase;
    let env: Record<string, string>;
    let dir: string;
    let projectId: string;
    beforeEach(async () => {
      database = await createTestDatabase(dialect);
      env = cliEnv(database);
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-cli-'));
      projectId = await createProject('A');
    });
    afterEach(async () => {
      await database.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    const folio = (...argv: string[]) => runFolio(env, argv, { cwd: dir });
    const file = (name: string, lines: unknown[] | string) => {
      fs.writeFileSync(path.join(dir, name), typeof lines === 'string' ? lines : ndjson(lines));
      return name;
    };
    async function createProject(name: string): Promise<string> {
      const run = await folio('projects', 'create', '--name', name, '--json');
      assert.equal(run.code, 0, run.stderr);
      return run.json().id;
    }
    const exportOf = async (project: string) => {
      const run = await folio('export', '--project', project);
      assert.equal(run.code, 0, run.stderr);
      return run.stdout;
    };
    /** Every article as `folio articles get --json` shows it, without the times a write sets. */
    const articlesOf = async (project: string) => {
      const list = await folio('articles', 'list', '--project', project, '--limit', '100', '--json');
      const ids: string[] = list
        .json()
        .data.map((article: { id: string }) => article.id)
        .sort();
      const shown = [];
      for (const id of ids) {
        const { updatedAt, createdAt, publishedAt, draft, ...rest } = (
          await folio('articles', 'get', id, '--project', project, '--json')
        ).json();
        shown.push({ ...rest, draft: draft && { ...draft, updatedAt: undefined } });
      }
      return shown;
    };
    const snapshot = async () => ({
      rows: await countRows(database.db),
      articles: await database.db.selectFrom('articles').selectAll().orderBy('id').execute(),
      projects: await database.db.selectFrom('projects').selectAll().orderBy('id').execute(),
    });

    // A published article with a draft and a schedule, one that only has a draft, and a plain
    // scheduled one.
    const publishAt = inDays(3);
    const unpublishAt = inDays(30);
    const source = [
      { id: 'changed', slug: 'changed', title: 'Served', blocks: [paragraph('Served')], published: true },
      {
        id: 'changed',
        draft: true,
        slug: 'changed-2',
        title: 'Edited',
        blocks: [paragraph('Edited')],
        seo: { description: 'New' },
        related: ['plain'],
        publishAt,
      },
      { id: 'new', draft: true, slug: 'new', title: 'Only a draft', blocks: [] },
      { id: 'plain', slug: 'plain', title: 'Plain', blocks: [], published: true, unpublishAt },
    ];

    test('draft lines save drafts and schedule times are kept; export writes both and round-trips', async () => {
      const imported = await folio('import', file('in.ndjson', source), '--json');
      assert.equal(imported.code, 0, imported.stdout);
      assert.deepEqual(
        [imported.json().created, imported.json().updated, imported.json().unchanged],
        [3, 1, 0],
        'the draft line of an article made on the line before counts as updated',
      );
      const shown = await articlesOf(projectId);
      const changed = shown.find((article) => article.id === 'changed')!;
      assert.deepEqual(
        [changed.slug, changed.title, changed.published, changed.publishAt, changed.unpublishAt],
        ['changed', 'Served', true, publishAt, null],
      );
      assert.deepEqual(changed.draft, {
        slug: 'changed-2',
        title: 'Edited',
        blocks: [paragraph('Edited')],
        seo: { description: 'New' },
        related: ['plain'],
        updatedAt: undefined,
      });
      const onlyDraft = shown.find((article) => article.id === 'new')!;
      assert.deepEqual([onlyDraft.published, onlyDraft.draft.title], [false, 'Only a draft']);
      assert.equal(shown.find((article) => article.id === 'plain')!.unpublishAt, unpublishAt);
      assert.deepEqual(
        (await listEvents(database.db)).map((event) => [event.type, event.payload.data.id]).sort(),
        [
          ['content.created', 'changed'],
          ['content.created', 'plain'],
        ],
        'saving a draft sends nothing',
      );

      const exported = await exportOf(projectId);
      assert.deepEqual(
        exported
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line)),
        [
          { ...source[0], seo: {}, related: [] },
          { ...source[1], publishAt },
          {
            id: 'new',
            slug: 'new',
            title: 'Only a draft',
            blocks: [],
            seo: {},
            related: [],
            published: false,
          },
          { ...source[2], seo: {}, related: [] },
          { ...source[3], seo: {}, related: [] },
        ],
        'a draft follows its article; the schedule rides on the last line',
      );
      const summary = await folio('export', '--output', 'out.ndjson', '--json');
      assert.deepEqual([summary.json().articles, summary.json().drafts], [3, 2]);
      assert.match(
        (await folio('export', '--output', 'out.ndjson')).stdout,
        /^Exported 3 articles \(2 with a draft\) of project/,
      );

      const b = await createProject('B');
      const intoB = await folio('import', file('export.ndjson', exported), '--project', b, '--json');
      assert.equal(intoB.code, 0, intoB.stdout);
      assert.deepEqual(await articlesOf(b), shown, 'the copy has the same articles, drafts and schedules');
      assert.equal(await exportOf(b), exported, 'and exports byte for byte the same');

      const events = (await listEvents(database.db)).length;
      const before = await snapshot();
      const again = await folio('import', 'export.ndjson', '--project', projectId, '--json');
      assert.equal(again.code, 0, again.stdout);
      assert.deepEqual([again.json().created, again.json().updated, again.json().unchanged], [0, 0, 5]);
      assert.deepEqual(await snapshot(), before, 're-importing the export changes nothing');
      assert.equal((await listEvents(database.db)).length, events);
    });

    test('a draft line on a published article keeps what is served; a past publishAt publishes the draft', async () => {
      assert.equal((await folio('import', file('in.ndjson', source))).code, 0);
      const served = (
        await database.db
          .selectFrom('articles')
          .select('served')
          .where('id', '=', 'plain')
          .executeTakeFirstOrThrow()
      ).served;
      const draft = { id: 'plain', draft: true, slug: 'plain', title: 'Plain, edited', blocks: [] };
      const saved = await folio('import', file('draft.ndjson', [draft]), '--json');
      assert.equal(saved.json().updated, 1);
      const row = await database.db
        .selectFrom('articles')
        .selectAll()
        .where('id', '=', 'plain')
        .executeTakeFirstOrThrow();
      assert.deepEqual([row.served, row.title, row.published], [served, 'Plain', 1]);

      const due = { ...draft, title: 'Plain, due', publishAt: '2020-01-01T00:00:00Z' };
      assert.equal((await folio('import', file('due.ndjson', [due]))).code, 0);
      const got = (await folio('articles', 'get', 'plain', '--json')).json();
      assert.deepEqual(
        [got.title, got.draft, got.publishAt, got.unpublishAt],
        ['Plain, due', null, null, unpublishAt],
      );
      const types = (await listEvents(database.db)).filter((event) => event.payload.data.id === 'plain');
      assert.deepEqual(
        types.map((event) => event.type),
        ['content.created', 'content.updated'],
      );
    });

    test('bad draft and schedule lines are named by line number and nothing is written', async () => {
      assert.equal((await folio('import', file('in.ndjson', source))).code, 0);
      const before = await snapshot();
      const lines = [
        { id: 'plain', draft: true, slug: 'plain', title: 'Fine', blocks: [] },
        {
          id: 'changed',
          draft: true,
          slug: 'c',
          title: 'C',
          blocks: [{ type: 'heading', level: 9, text: 'x' }],
        },
        { id: 'plain', draft: true, slug: 'plain', title: 'Again', blocks: [] },
        { id: 'x', draft: true, slug: 'x', title: 'X', blocks: [], published: true },
        { id: 'y', draft: 'yes', slug: 'y', title: 'Y', blocks: [] },
        { id: 'z', slug: 'z', title: 'Z', blocks: [], publishAt: 'next week' },
        { id: 'w', draft: true, slug: 'w', title: 'W', blocks: [], colour: 'red' },
      ];
      const run = await folio('import', file('bad.ndjson', lines), '--json');
      assert.equal(run.code, 1);
      assert.equal(run.json().written, false);
      assert.deepEqual(
        run
          .json()
          .invalidLines.map((entry: { line: number; details: { path: string }[] }) => [
            entry.line,
            entry.details[0]!.path,
          ]),
        [
          [2, '/blocks/0/level'],
          [3, '/id'],
          [4, '/published'],
          [5, '/draft'],
          [6, '/publishAt'],
          [7, '/colour'],
        ],
      );
      const messages = run.json().invalidLines.map((entry: { message: string }) => entry.message);
      assert.equal(messages[0], 'blocks/0/level must be one of 2, 3, 4');
      assert.equal(messages[1], 'is a second draft of "plain" (the first is on line 1)');
      assert.match(messages[2], /^published cannot be set on a draft line: saving a draft never publishes/);
      assert.equal(messages[3], 'draft must be boolean');
      assert.match(messages[4], /^publishAt must match format "date-time"/);
      assert.equal(
        run.stderr,
        'folio import: 6 lines not imported (lines 2, 3, 4, 5, 6, 7); nothing was written\n',
      );
      assert.deepEqual(await snapshot(), before);

      // Refused only when written: the whole import rolls back, the line is named.
      const late = [
        { id: 'plain', draft: true, slug: 'plain', title: 'Fine', blocks: [] },
        { id: 'other', draft: true, slug: 'changed-2', title: 'Takes a draft slug', blocks: [] },
        { id: 'third', slug: 'third', title: 'T', blocks: [], publishAt: inDays(2), unpublishAt: inDays(1) },
      ];
      const written = await folio('import', file('late.ndjson', late), '--json');
      assert.equal(written.code, 1);
      assert.deepEqual(
        written.json().invalidLines.map((entry: { line: number; code: string }) => [entry.line, entry.code]),
        [[2, 'conflict']],
      );
      assert.deepEqual(await snapshot(), before, 'line 1 was rolled back');

      const dry = await folio('import', 'late.ndjson', '--dry-run', '--json');
      assert.deepEqual(
        dry
          .json()
          .invalidLines.map((entry: { line: number; details: { path: string }[] }) => [
            entry.line,
            entry.details[0]!.path,
          ]),
        [
          [2, '/slug'],
          [3, '/unpublishAt'],
        ],
        'a dry run finds every line that would fail when written',
      );
      assert.deepEqual([dry.json().updated, dry.json().dryRun], [1, true]);
      assert.deepEqual(await snapshot(), before);

      const partial = await folio('import', 'late.ndjson', '--continue-on-error', '--json');
      assert.equal(partial.code, 1);
      assert.deepEqual(
        [partial.json().written, partial.json().updated, partial.json().invalid],
        [true, 1, 2],
      );
      const plain = (await folio('articles', 'get', 'plain', '--json')).json();
      assert.equal(plain.draft.title, 'Fine');
    });

    test('--dry-run reports draft lines as the import would, and writes nothing', async () => {
      const before = await snapshot();
      const dry = await folio('import', file('in.ndjson', source), '--dry-run', '--json');
      assert.equal(dry.code, 0, dry.stdout);
      assert.deepEqual([dry.json().created, dry.json().updated, dry.json().written], [3, 1, false]);
      assert.deepEqual(await snapshot(), before);
      const real = await folio('import', 'in.ndjson', '--json');
      assert.deepEqual([real.json().created, real.json().updated], [3, 1]);
      const again = await folio('import', 'in.ndjson', '--dry-run', '--json');
      assert.equal(again.json().unchanged, 4);
    });

    test('a bad draft line gets the same details as the same draft PUT over HTTP', async () => {
      const app = await createTestApp(dialect);
      try {
        const appProject = (await app.createProject()).id;
        const bad: Array<Record<string, unknown>> = [
          { slug: 'a/b', title: '', blocks: [] },
          {
            slug: 'x',
            title: 'X',
            blocks: [{ type: 'paragraph', content: [{ text: 'x', href: 'javascript:x' }] }],
          },
          {
            slug: 'x',
            title: 'X',
            blocks: [],
            seo: { canonicalPath: '/x' },
            publishAt: '2026-13-01T00:00:00Z',
          },
        ];
        const lines = bad.map((draft, i) => ({ id: `bad-${i}`, draft: true, ...draft }));
        const run = await folio('import', file('bad.ndjson', lines), '--json');
        assert.equal(run.code, 1);
        const invalid = run.json().invalidLines;
        for (const [i, draft] of bad.entries()) {
          const response = await app.admin(
            'PUT',
            `/admin/v1/projects/${appProject}/articles/bad-${i}/draft`,
            draft,
          );
          assert.equal(response.statusCode, 400, response.body);
          assert.deepEqual(invalid[i].details, response.json().error.details, `line ${i + 1}`);
        }
      } finally {
        await app.close();
      }
    });
  });
}
