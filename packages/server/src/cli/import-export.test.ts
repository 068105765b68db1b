import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { ArticleInput } from '@folio/schema';
import { demoArticles } from '../content/demo-articles.ts';
import { fixtureArticle } from '../content/fixture-article.ts';
import { countRows, listEvents } from '../test/assertions.ts';
import { cliEnv, runFolio } from '../test/cli-runner.ts';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../test/databases.ts';
import { createTestApp } from '../test/test-app.ts';

type Line = ArticleInput & { id: string };

/** The demo articles and the every-block fixture as import lines; every other one published. */
function sampleLines(): Line[] {
  const articles = [fixtureArticle, ...demoArticles].map(
    ({ id, slug, title, blocks, seo, related }, index) => ({
      id,
      slug,
      title,
      blocks,
      ...(seo ? { seo } : {}),
      ...(related ? { related } : {}),
      published: index % 2 === 0,
    }),
  );
  return articles;
}

const ndjson = (lines: unknown[]) => `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;

const paragraph = (text: string) => ({ type: 'paragraph', content: [{ text }] });

for (const dialect of DIALECTS) {
  describe(`folio import and export [${dialect}]`, () => {
    let database: TestDatabase;
    let env: Record<string, string>;
    let dir: string;
    beforeEach(async () => {
      database = await createTestDatabase(dialect);
      env = cliEnv(database);
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-cli-'));
    });
    afterEach(async () => {
      await database.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    const folio = (...argv: string[]) => runFolio(env, argv, { cwd: dir });
    const file = (name: string, content: string) => {
      fs.writeFileSync(path.join(dir, name), content);
      return name;
    };
    const createProject = async (name = 'Blog') => {
      const run = await folio('projects', 'create', '--name', name, '--json');
      assert.equal(run.code, 0, run.stderr);
      return run.json<{ id: string }>().id;
    };
    const exportOf = async (projectId: string) => {
      const run = await folio('export', '--project', projectId);
      assert.equal(run.code, 0, run.stderr);
      return run.stdout;
    };
    const articleRows = (projectId: string) =>
      database.db
        .selectFrom('articles')
        .selectAll()
        .where('project_id', '=', projectId)
        .orderBy('id')
        .execute();

    test('export then import into an empty project gives identical articles; re-importing is all unchanged', async () => {
      const a = await createProject('A');
      const lines = sampleLines();
      const imported = await folio('import', file('in.ndjson', ndjson(lines)), '--json');
      assert.equal(imported.code, 0, imported.stderr);
      const summary = imported.json();
      assert.deepEqual(
        { ...summary, file: undefined },
        {
          project: a,
          file: undefined,
          written: true,
          dryRun: false,
          created: lines.length,
          updated: 0,
          unchanged: 0,
          invalid: 0,
          invalidLines: [],
        },
      );

      const exported = await exportOf(a);
      const exportedLines = exported.trimEnd().split('\n');
      assert.equal(exportedLines.length, lines.length);
      const byId = new Map(lines.map((line) => [line.id, line]));
      for (const text of exportedLines) {
        const line = JSON.parse(text);
        const source = byId.get(line.id)!;
        assert.deepEqual(line, { seo: {}, related: [], ...source }, line.id);
      }

      const b = await createProject('B');
      const intoB = await folio('import', file('export.ndjson', exported), '--project', b, '--json');
      assert.equal(intoB.code, 0, intoB.stderr);
      assert.equal(intoB.json().created, lines.length);
      assert.equal(await exportOf(b), exported, 'the copy exports byte for byte the same');
      const served = (rows: Awaited<ReturnType<typeof articleRows>>) =>
        rows.map(({ id, slug, title, blocks, seo, related, published }) => ({
          id,
          slug,
          title,
          blocks,
          seo,
          related,
          published,
        }));
      assert.deepEqual(served(await articleRows(b)), served(await articleRows(a)));

      const eventsBefore = (await listEvents(database.db)).length;
      const again = await folio('import', 'export.ndjson', '--project', a, '--json');
      assert.equal(again.code, 0, again.stderr);
      assert.equal(again.json().unchanged, lines.length);
      assert.equal(again.json().created + again.json().updated, 0);
      assert.equal((await listEvents(database.db)).length, eventsBefore, 'a no-op import records no event');
      const human = await folio('import', 'export.ndjson', '--project', a);
      assert.match(human.stdout, new RegExp(`0 created, 0 updated, ${lines.length} unchanged, 0 invalid`));
    });

    test('import goes through the article service: published lines record content.created events', async () => {
      await createProject();
      const lines = sampleLines();
      assert.equal((await folio('import', file('in.ndjson', ndjson(lines)))).code, 0);
      const created = (await listEvents(database.db)).filter((event) => event.type === 'content.created');
      assert.deepEqual(
        created.map((event) => event.payload.data.id).sort(),
        lines
          .filter((line) => line.published)
          .map((line) => line.id)
          .sort(),
      );
    });

    test('a changed line is updated, the rest unchanged; blank lines are skipped', async () => {
      await createProject();
      const lines = sampleLines();
      await folio('import', file('in.ndjson', ndjson(lines)));
      const changed = lines.map((line, i) => (i === 2 ? { ...line, title: 'A new title' } : line));
      const run = await folio('import', file('changed.ndjson', `\n${ndjson(changed)}\n\n`), '--json');
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.json().updated, 1);
      assert.equal(run.json().unchanged, lines.length - 1);
      const row = await database.db
        .selectFrom('articles')
        .select('title')
        .where('id', '=', lines[2]!.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.title, 'A new title');
    });

    test('a line with thousands of bad blocks gets capped details and says there are more', async () => {
      await createProject();
      const blocks = Array.from({ length: 5_000 }, (_, i) =>
        i % 2 === 0 ? { type: 'heading', level: 9, text: 'x' } : { type: 'faq', items: [{ question: i }] },
      );
      const run = await folio(
        'import',
        file('many.ndjson', ndjson([{ id: 'many', slug: 'm', title: 'M', blocks }])),
        '--json',
      );
      assert.equal(run.code, 1, run.stderr);
      const [line] = run.json().invalidLines;
      assert.equal(line.details.length, 100);
      assert.deepEqual(line.details[0], { path: '/blocks/0/level', message: 'must be one of 2, 3, 4' });
      assert.match(line.message, /\(and at least 100 more problems\)$/);
    });

    test('one invalid line: nothing is written, exit 1, the summary names each invalid line', async () => {
      const projectId = await createProject();
      await folio(
        'import',
        file('first.ndjson', ndjson([{ id: 'keep', slug: 'keep', title: 'Kept', blocks: [] }])),
      );
      const before = await countRows(database.db);
      const content = [
        JSON.stringify({ id: 'keep', slug: 'keep', title: 'Changed', blocks: [] }),
        JSON.stringify({
          id: 'new-1',
          slug: 'new-1',
          title: 'New',
          blocks: [paragraph('x')],
          published: true,
        }),
        JSON.stringify({
          id: 'bad',
          slug: 'bad',
          title: 'Bad',
          blocks: [{ type: 'heading', level: 7, text: 'x' }],
        }),
        '{"id": "broken",',
        JSON.stringify({ id: 'new-2', slug: 'new-2', title: 'New 2', blocks: [] }),
        JSON.stringify({ id: 'bad id!', slug: 'x', title: 'X', blocks: [] }),
      ].join('\n');
      const run = await folio('import', file('in.ndjson', content), '--json');
      assert.equal(run.code, 1);
      const summary = run.json();
      assert.equal(summary.written, false);
      assert.deepEqual([summary.created, summary.updated, summary.unchanged, summary.invalid], [0, 0, 0, 3]);
      assert.deepEqual(
        summary.invalidLines.map((entry: { line: number; id: string | null }) => [entry.line, entry.id]),
        [
          [3, 'bad'],
          [4, null],
          [6, 'bad id!'],
        ],
      );
      assert.deepEqual(summary.invalidLines[0].details, [
        { path: '/blocks/0/level', message: 'must be one of 2, 3, 4' },
      ]);
      assert.equal(
        summary.invalidLines[1].message,
        'is not valid JSON: expected double-quoted property name at column 17',
        'said once, with the column',
      );
      assert.equal(summary.invalidLines[2].details[0].path, '/id');
      assert.equal(run.stderr, 'folio import: 3 lines not imported (lines 3, 4, 6); nothing was written\n');

      assert.deepEqual(await countRows(database.db), before, 'no article and no event was written');
      assert.equal((await articleRows(projectId))[0]!.title, 'Kept');

      const human = await folio('import', 'in.ndjson');
      assert.match(
        human.stdout,
        /^Nothing was imported into project prj_\w+: 0 created, 0 updated, 0 unchanged, 3 invalid\./,
      );
      assert.match(human.stdout, /\n {2}line 3 \(id bad\): blocks\/0\/level must be one of 2, 3, 4\n/);
      assert.match(human.stdout, /--continue-on-error/);
    });

    test('lines that are not objects, and an id given twice, are invalid lines too', async () => {
      await createProject();
      const content = [
        'null',
        '[]',
        '42',
        JSON.stringify({ id: 'a', slug: 'a', title: 'A', blocks: [] }),
        JSON.stringify({ id: 'a', slug: 'a-again', title: 'A again', blocks: [] }),
      ].join('\n');
      const run = await folio('import', file('in.ndjson', content), '--continue-on-error', '--json');
      assert.equal(run.code, 1);
      assert.deepEqual(
        run
          .json()
          .invalidLines.map((entry: { line: number; message: string }) => [entry.line, entry.message]),
        [
          [1, 'must be an object'],
          [2, 'must be an object'],
          [3, 'must be an object'],
          [5, 'repeats the id "a" of line 4'],
        ],
      );
      assert.equal(run.json().created, 1);
      const rows = await database.db.selectFrom('articles').select(['id', 'slug']).execute();
      assert.deepEqual(
        rows.map((row) => [row.id, row.slug]),
        [['a', 'a']],
        'the first line of an id is the one written',
      );
    });

    test('an invalid line gets the same details as the same article PUT over HTTP', async () => {
      await createProject();
      const app = await createTestApp(dialect);
      try {
        const projectId = (await app.createProject()).id;
        const bad: Array<Record<string, unknown>> = [
          { slug: 'a/b', title: '', blocks: [] },
          {
            slug: 'x',
            title: 'X',
            blocks: [{ type: 'paragraph', content: [{ text: 'x', href: 'javascript:alert(1)' }] }],
          },
          {
            slug: 'x',
            title: 'X',
            blocks: [{ type: 'video', provider: 'vimeo', videoId: '!' }],
            colour: 'red',
          },
          { slug: 'x', title: 'X', blocks: [], seo: { canonicalPath: '/x' }, related: ['a b'] },
          { title: 'X', blocks: [{ type: 'callout', variant: 'loud', content: [] }, { type: 'nope' }] },
        ];
        const lines = bad.map((article, i) => ({ id: `bad-${i}`, ...article }));
        const run = await folio('import', file('bad.ndjson', ndjson(lines)), '--json');
        assert.equal(run.code, 1);
        const invalid = run.json().invalidLines;
        assert.equal(invalid.length, bad.length);
        for (const [i, article] of bad.entries()) {
          const response = await app.admin(
            'PUT',
            `/admin/v1/projects/${projectId}/articles/bad-${i}`,
            article,
          );
          assert.equal(response.statusCode, 400, response.body);
          assert.deepEqual(invalid[i].details, response.json().error.details, `line ${i + 1}`);
          assert.equal(invalid[i].code, response.json().error.code);
        }
      } finally {
        await app.close();
      }
    });

    test('a line that fails when written (a taken slug) rolls back every line before it', async () => {
      const projectId = await createProject();
      const before = await countRows(database.db);
      const lines = [
        { id: 'one', slug: 'one', title: 'One', blocks: [], published: true },
        { id: 'two', slug: 'shared', title: 'Two', blocks: [], published: true },
        { id: 'three', slug: 'shared', title: 'Three', blocks: [] },
        { id: 'four', slug: 'four', title: 'Four', blocks: [], seo: { ogImage: '/relative.png' } },
      ];
      const run = await folio('import', file('in.ndjson', ndjson(lines)), '--json');
      assert.equal(run.code, 1);
      assert.equal(run.json().written, false);
      assert.deepEqual(
        run.json().invalidLines.map((entry: { line: number; code: string }) => [entry.line, entry.code]),
        [[3, 'conflict']],
      );
      assert.deepEqual(await countRows(database.db), before, 'lines 1 and 2 were rolled back, events too');
      assert.deepEqual(await articleRows(projectId), []);

      const partial = await folio('import', 'in.ndjson', '--continue-on-error', '--json');
      assert.equal(partial.code, 1, 'exit 1: not every line was imported');
      const summary = partial.json();
      assert.equal(summary.written, true);
      assert.equal(summary.created, 2);
      assert.deepEqual(
        summary.invalidLines.map((entry: { line: number; code: string }) => [entry.line, entry.code]),
        [
          [3, 'conflict'],
          [4, 'invalid_body'],
        ],
      );
      assert.equal(summary.invalidLines[1].details[0].path, '/seo/ogImage');
      assert.deepEqual(
        (await articleRows(projectId)).map((row) => row.id),
        ['one', 'two'],
      );
    });

    test('bytes: a BOM and CRLF are no part of a line; bad UTF-8 and lines over 1 MiB are invalid', async () => {
      const projectId = await createProject();
      const line = (id: string, title = id) => JSON.stringify({ id, slug: id, title, blocks: [] });
      const huge = JSON.stringify({ id: 'd', slug: 'd', title: 'x'.repeat(1024 * 1024), blocks: [] });
      const content = Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from(`${line('a')}\r\n`),
        // A Latin-1 "é" (0xE9) is no UTF-8; decoded, it would be stored as U+FFFD.
        Buffer.from(`${line('b', 'caf')}`.replace('caf"', 'caf\u0000"')).map((byte) =>
          byte === 0 ? 0xe9 : byte,
        ),
        Buffer.from(`\r\n${line('c')}\n${huge}\n`),
      ]);
      fs.writeFileSync(path.join(dir, 'bytes.ndjson'), content);
      const run = await folio('import', 'bytes.ndjson', '--continue-on-error', '--json');
      assert.equal(run.code, 1);
      assert.deepEqual(
        run
          .json()
          .invalidLines.map((entry: { line: number; message: string }) => [entry.line, entry.message]),
        [
          [2, 'is not valid UTF-8'],
          [4, `is ${Buffer.byteLength(huge)} bytes, over the 1 MiB an article may be`],
        ],
      );
      assert.deepEqual(
        (await articleRows(projectId)).map((row) => row.id),
        ['a', 'c'],
      );
    });

    test('--continue-on-error writes the valid lines and reports the invalid ones', async () => {
      const projectId = await createProject();
      const content = [
        JSON.stringify({ id: 'a', slug: 'a', title: 'A', blocks: [] }),
        'not json',
        JSON.stringify({ id: 'b', slug: 'b', title: 'B', blocks: [{ type: 'image' }] }),
        JSON.stringify({ id: 'c', slug: 'c', title: 'C', blocks: [], published: true }),
      ].join('\n');
      const run = await folio('import', file('in.ndjson', content), '--continue-on-error');
      assert.equal(run.code, 1);
      assert.match(
        run.stdout,
        /^Imported into project prj_\w+: 2 created, 0 updated, 0 unchanged, 2 invalid\./,
      );
      assert.match(run.stdout, /\n {2}line 2: is not valid JSON: unexpected token 'o'\n/);
      assert.match(run.stdout, /line 3 \(id b\): blocks\/0\/url is required/);
      assert.equal(run.stderr, 'folio import: 2 lines not imported (lines 2, 3)\n');
      assert.deepEqual(
        (await articleRows(projectId)).map((row) => [row.id, row.published]),
        [
          ['a', 0],
          ['c', 1],
        ],
      );
    });

    test('--project defaults to the only project; with none it fails, with several it is required', async () => {
      const input = file('in.ndjson', ndjson([{ id: 'a', slug: 'a', title: 'A', blocks: [] }]));
      const none = await folio('import', input);
      assert.equal(none.code, 1);
      assert.match(none.stderr, /no project yet/);
      const only = await createProject();
      const run = await folio('import', input, '--json');
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.json().project, only);
      await createProject('Other');
      const ambiguous = await folio('export');
      assert.equal(ambiguous.code, 2);
      assert.match(ambiguous.stderr, /--project is required: there are 2 projects/);
      assert.equal((await folio('import', input)).code, 2);
      assert.equal((await folio('import', input, '--project', only)).code, 0);
    });

    test('export --output writes the file whole and prints a summary; a missing import file is exit 1', async () => {
      const projectId = await createProject();
      await folio('import', file('in.ndjson', ndjson(sampleLines())));
      const run = await folio('export', '--output', 'out.ndjson', '--json');
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(run.json(), {
        project: projectId,
        output: path.join(dir, 'out.ndjson'),
        articles: sampleLines().length,
        drafts: 0,
      });
      assert.equal(fs.readFileSync(path.join(dir, 'out.ndjson'), 'utf8'), await exportOf(projectId));
      assert.deepEqual(
        fs.readdirSync(dir).sort(),
        ['in.ndjson', 'out.ndjson'],
        'no partial file is left behind',
      );
      const empty = await createProject('Empty');
      assert.equal(await exportOf(empty), '');

      const nowhere = await folio('export', '--project', projectId, '--output', 'nodir/out.ndjson');
      assert.equal(nowhere.code, 1);
      assert.equal(
        nowhere.stderr,
        `folio export: Cannot write ${path.join(dir, 'nodir', 'out.ndjson')}: the directory ${path.join(dir, 'nodir')} does not exist (create it first).\n`,
        'as backup says it',
      );
      const missing = await folio('import', 'nope.ndjson', '--project', projectId);
      assert.equal(missing.code, 1);
      assert.equal(
        missing.stderr,
        `folio import: The file ${path.join(dir, 'nope.ndjson')} does not exist.\n`,
      );
    });

    test('an empty or blank file is an error said once; nothing is written', async () => {
      await createProject();
      const before = await countRows(database.db);
      for (const [content, what] of [
        ['', 'is empty'],
        ['\n  \n\n', 'has only blank lines'],
      ]) {
        const run = await folio('import', file('empty.ndjson', content!), '--json');
        assert.equal(run.code, 1, `${JSON.stringify(content)}: exit 1`);
        assert.equal(run.json().error.code, 'invalid_body');
        assert.equal(
          run.stderr,
          `folio import: The file ${path.join(dir, 'empty.ndjson')} ${what}: nothing to import.\n`,
        );
        assert.equal((await folio('import', 'empty.ndjson', '--dry-run')).code, 1);
      }
      assert.deepEqual(await countRows(database.db), before);
    });

    test('the progress bar is drawn on stderr only when it is a terminal', async () => {
      await createProject();
      const input = file('in.ndjson', ndjson(sampleLines()));
      const plain = await folio('import', input);
      assert.equal(plain.code, 0);
      assert.equal(plain.stderr, '', 'no progress when stderr is not a terminal');
      const tty = await runFolio(env, ['import', input, '--json'], { cwd: dir, tty: true });
      assert.equal(tty.code, 0);
      const erase = '\r\u001b[K';
      assert.ok(tty.stderr.includes(`${erase}importing  ${'█'.repeat(30)} `), tty.stderr);
      const count = sampleLines().length;
      assert.ok(
        tty.stderr.includes(`${erase}checking   ${'█'.repeat(30)} ${count}/${count}`),
        'the counter ends at the number of lines: the final newline starts no line',
      );
      assert.ok(!tty.stderr.includes(`/${count + 1}`), tty.stderr);
      assert.ok(tty.stderr.endsWith(erase), 'the bar is cleared at the end');
      assert.equal(tty.json().unchanged, sampleLines().length, 'stdout holds only the JSON summary');
    });
  });
}
