import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { sqliteFile } from '../db/connect.ts';
import { isSqliteLocked } from '../db/errors.ts';
import { countRows } from '../test/assertions.ts';
import { cliEnv, runFolio } from '../test/cli-runner.ts';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../test/databases.ts';

const BIN = fileURLToPath(new URL('../../bin/folio.js', import.meta.url));

// Enough lines that writing them takes many times as long as a command takes to notice that
// its launcher is gone.
const LINES = Array.from({ length: 40_000 }, (_, i) =>
  JSON.stringify({
    id: `a${i}`,
    slug: `s${i}`,
    title: `Title ${i}`,
    blocks: [{ type: 'paragraph', content: [{ text: `The text of article ${i}.` }] }],
    published: true,
  }),
);
// Generous: the machine running the tests may be slow and shared.
const DEADLINE_MS = 30_000;

for (const dialect of DIALECTS) {
  describe(`a folio command whose launcher is killed outright [${dialect}]`, () => {
    let database: TestDatabase;
    let dir: string;
    let env: Record<string, string>;
    let projectId: string;
    beforeEach(async () => {
      database = await createTestDatabase(dialect);
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-launcher-'));
      env = cliEnv(database);
      projectId = (await runFolio(env, ['projects', 'create', '--name', 'Blog', '--json'])).json().id;
      writeLines('big.ndjson', LINES);
    });
    afterEach(async () => {
      await database.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    const writeLines = (file: string, lines: string[]) =>
      fs.writeFileSync(path.join(dir, file), `${lines.join('\n')}\n`);

    /**
     * Runs `folio args` through the real launcher and SIGKILLs the launcher once `due()` answers
     * true; resolves with what they printed once the command has stopped and let go of the
     * project's write lock.
     */
    async function killLauncherOf(args: string[], due: () => boolean | Promise<boolean>): Promise<string> {
      const { DATABASE_URL: _ignored, ...inherited } = process.env;
      const launcher = spawn(process.execPath, [BIN, ...args], {
        env: { ...inherited, LOG_LEVEL: 'warn', FOLIO_DEMO: 'false', ...env },
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      launcher.stdout.on('data', (chunk) => {
        output += chunk;
      });
      launcher.stderr.on('data', (chunk) => {
        output += chunk;
      });
      const child = await until(
        () => childOf(launcher.pid!),
        () => 'the launcher to start its child',
      );
      try {
        await until(due, () => `the moment to kill the launcher:\n${output}`);
        launcher.kill('SIGKILL');
        await until(
          () => !running(child),
          () => `the command to stop with its launcher:\n${output}`,
        );
      } finally {
        if (running(child)) process.kill(child, 'SIGKILL');
      }
      // On PostgreSQL, a COMMIT the command sent before it ended may still be under way.
      await until(
        async () => !(await writeLockHeld(database, projectId)),
        () => 'the stopped command to let go of the database',
      );
      return output;
    }

    test('an import stops with it, and its one transaction leaves nothing behind', async () => {
      const before = await countRows(database.db);
      const output = await killLauncherOf(['import', 'big.ndjson'], () => writeLockHeld(database, projectId));
      assert.deepEqual(await countRows(database.db), before, 'an interrupted import writes nothing');
      assert.match(output, /launcher gone/);

      // The lines it did not write import as new ones.
      writeLines('head.ndjson', LINES.slice(0, 20));
      const again = await runFolio(env, ['import', 'head.ndjson', '--json'], { cwd: dir });
      assert.equal(again.code, 0, again.stderr);
      assert.equal(again.json().created, 20);
    });

    test('an import with --continue-on-error stops with it, keeping every line it wrote whole', async () => {
      const articles = async () => (await countRows(database.db)).articles;
      const output = await killLauncherOf(
        ['import', 'big.ndjson', '--continue-on-error'],
        async () => (await articles()) > 0,
      );
      const written = await articles();
      assert.ok(written < LINES.length, 'it stopped before the end of the file');
      assert.match(output, /launcher gone/);
      // Line by line, in order: what it wrote is the file's first lines.
      const ids = (await database.db.selectFrom('articles').select('id').execute()).map((row) => row.id);
      assert.deepEqual(
        ids.sort(),
        LINES.slice(0, written)
          .map((line) => JSON.parse(line).id as string)
          .sort(),
      );

      // Around where it stopped: the lines before are there as in the file, the next ones are not.
      writeLines('edge.ndjson', LINES.slice(Math.max(0, written - 10), written + 10));
      const again = await runFolio(env, ['import', 'edge.ndjson', '--json'], { cwd: dir });
      assert.equal(again.code, 0, again.stderr);
      const { created, updated, unchanged } = again.json();
      assert.deepEqual(
        { created, updated, unchanged },
        { created: 10, updated: 0, unchanged: Math.min(written, 10) },
      );
    });

    test('an import whose launcher is killed as it starts stops before it writes', async () => {
      const before = await countRows(database.db);
      const output = await killLauncherOf(['import', 'big.ndjson'], () => true);
      assert.deepEqual(await countRows(database.db), before);
      assert.match(output, /launcher gone/);
    });
  });
}

/** Resolves with what `check` answers once it answers something truthy; fails past the deadline. */
async function until<T>(check: () => T | Promise<T>, what: () => string): Promise<NonNullable<T>> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const answer = await check();
    if (answer) return answer;
    assert.ok(Date.now() < deadline, `waited in vain for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The pid of the launcher's child process, once it has one. */
function childOf(launcher: number): number | undefined {
  const children = fs.readFileSync(`/proc/${launcher}/task/${launcher}/children`, 'utf8').trim();
  return children ? Number(children.split(/\s+/)[0]) : undefined;
}

/** Whether the process runs: not gone, nor a zombie that nobody has reaped yet. */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Whether another connection holds the project's write lock: an import in its transaction. */
async function writeLockHeld(database: TestDatabase, projectId: string): Promise<boolean> {
  if (database.dialect === 'postgres') {
    try {
      await sql`select id from projects where id = ${projectId} for update nowait`.execute(database.db);
      return false;
    } catch (error) {
      if ((error as { code?: unknown }).code === '55P03') return true;
      throw error;
    }
  }
  const probe = new DatabaseSync(sqliteFile(database.location.dataDir));
  try {
    probe.exec('PRAGMA busy_timeout = 0');
    probe.exec('BEGIN IMMEDIATE');
    probe.exec('ROLLBACK');
    return false;
  } catch (error) {
    if (isSqliteLocked(error)) return true;
    throw error;
  } finally {
    probe.close();
  }
}
