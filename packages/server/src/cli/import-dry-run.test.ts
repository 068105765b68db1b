import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { countRows, listEvents } from '../test/assertions.ts';
import { cliEnv, runFolio } from '../test/cli-runner.ts';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../test/databases.ts';

const ndjson = (lines: unknown[]) => `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
const article = (id: string, slug = id, extra: Record<string, unknown> = {}) => ({
  id,
  slug,
  title: `Title ${id}`,
  blocks: [],
  ...extra,
});

for (const dialect of DIALECTS) {
  describe(`folio import --dry-run [${dialect}]`, () => {
    let database: TestDatabase;
    let env: Record<string, string>;
    let dir: string;
    beforeEach(async () => {
      database = await createTestDatabase(dialect);
      env = cliEnv(database);
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-cli-'));
      assert.equal((await folio('projects', 'create', '--name', 'Blog')).code, 0);
      const existing = [article('same'), article('changed'), article('holder', 'taken', { published: true })];
      assert.equal((await folio('import', file('existing.ndjson', ndjson(existing)))).code, 0);
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
    const snapshot = async () => ({
      rows: await countRows(database.db),
      events: (await listEvents(database.db)).length,
      articles: await database.db.selectFrom('articles').selectAll().orderBy('id').execute(),
      // The project's change counters and the delivery queue, which a write would have moved.
      projects: await database.db.selectFrom('projects').selectAll().execute(),
      deliveries: (await database.db.selectFrom('webhook_deliveries').select('id').execute()).length,
    });

    test('reports what each line would do, every line that would fail, and writes nothing', async () => {
      const before = await snapshot();
      const content = ndjson([
        article('same'),
        article('changed', 'changed', { title: 'A new title', published: true }),
        article('new', 'new', { published: true }),
        article('thief', 'taken'),
        { id: 'bad', slug: 'bad', title: 'Bad', blocks: [{ type: 'heading', level: 9, text: 'x' }] },
        article('second-thief', 'taken'),
        article('after', 'after'),
      ]);
      const run = await folio('import', file('in.ndjson', content), '--dry-run', '--json');
      assert.equal(run.code, 1, 'exit 1: not every line would be imported');
      const summary = run.json();
      assert.deepEqual(
        [
          summary.dryRun,
          summary.written,
          summary.created,
          summary.updated,
          summary.unchanged,
          summary.invalid,
        ],
        [true, false, 2, 1, 1, 3],
      );
      assert.deepEqual(
        summary.invalidLines.map((entry: { line: number; code: string }) => [entry.line, entry.code]),
        [
          [4, 'conflict'],
          [5, 'invalid_body'],
          [6, 'conflict'],
        ],
        'a slug another article holds is found without writing, and the lines after it are still tried',
      );
      assert.equal(
        run.stderr,
        'folio import: 3 lines would not be imported (lines 4, 5, 6); dry run, nothing was written\n',
      );
      assert.deepEqual(await snapshot(), before, 'no article, event or change was written');

      const human = await folio('import', 'in.ndjson', '--dry-run');
      assert.match(
        human.stdout,
        /^Dry run, nothing was written\. Importing into project prj_\w+ would give: 2 created, 1 updated, 1 unchanged, 3 invalid\.\n/,
      );
      assert.match(
        human.stdout,
        /\n {2}line 4 \(id thief\): The slug "taken" is already used by article "holder"/,
      );
      assert.match(
        human.stdout,
        /As it is, the import would write nothing: fix these lines, or add --continue-on-error\.\n$/,
      );
      const lenient = await folio('import', 'in.ndjson', '--dry-run', '--continue-on-error');
      assert.match(lenient.stdout, /With --continue-on-error, the other lines would be written\.\n$/);
      assert.deepEqual(await snapshot(), before);
    });

    test('a clean dry run exits 0 and the import then does exactly what it said', async () => {
      const content = ndjson([
        article('same'),
        article('changed', 'changed', { title: 'Changed' }),
        article('new-1'),
        article('new-2', 'new-2', { published: true }),
      ]);
      const dry = await folio('import', file('in.ndjson', content), '--dry-run', '--json');
      assert.equal(dry.code, 0, dry.stderr);
      assert.equal(dry.stderr, '');
      const human = await folio('import', 'in.ndjson', '--dry-run');
      assert.match(human.stdout, /\nEvery line can be imported: run again without --dry-run\.\n$/);

      const real = await folio('import', 'in.ndjson', '--json');
      assert.equal(real.code, 0, real.stderr);
      const counts = (summary: Record<string, unknown>) =>
        ['created', 'updated', 'unchanged', 'invalid'].map((name) => summary[name]);
      assert.deepEqual(counts(dry.json()), counts(real.json()));
      assert.deepEqual(counts(real.json()), [2, 1, 1, 0]);
      assert.deepEqual([real.json().dryRun, real.json().written], [false, true]);
    });
  });
}
