import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { countRows } from '../test/assertions.ts';
import { cliEnv } from '../test/cli-runner.ts';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../test/databases.ts';

const BIN = fileURLToPath(new URL('../../bin/folio.js', import.meta.url));
const REPO = fileURLToPath(new URL('../../../../', import.meta.url));

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `file args` as a real process and waits for it to exit. */
function run(file: string, args: string[], env: Record<string, string>, cwd: string): Promise<Exit> {
  return new Promise((resolve) => {
    const { DATABASE_URL: _ignored, ...inherited } = process.env;
    execFile(
      file,
      args,
      { env: { ...inherited, LOG_LEVEL: 'warn', FOLIO_DEMO: 'false', ...env }, cwd, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? ((error as { code?: unknown }).code as number | null) : 0;
        resolve({ code: typeof code === 'number' ? code : null, stdout, stderr });
      },
    );
  });
}

describe('folio as a real process', () => {
  test('bin/folio.js --help runs on the pinned Node and exits 0', async () => {
    const exit = await run(process.execPath, [BIN, '--help'], {}, os.tmpdir());
    assert.equal(exit.code, 0, exit.stderr);
    assert.match(exit.stdout, /Usage: folio <command> \[options\]/);
    assert.equal(exit.stderr, '');
  });

  test('npm links the bin: node_modules/.bin/folio works through its shebang (whatever node is on PATH)', async () => {
    const linked = path.join(REPO, 'node_modules', '.bin', 'folio');
    assert.ok(fs.existsSync(linked), 'npm install links the folio bin');
    const exit = await run(linked, ['import', '--help'], {}, REPO);
    assert.equal(exit.code, 0, exit.stderr);
    assert.match(exit.stdout, /^Usage: folio import FILE/);
  });

  test('a start-up that fails on a setting says which one, in one line', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-start-'));
    const file = path.join(dir, 'a-file');
    fs.writeFileSync(file, '');
    // A data directory whose database file is something else.
    const garbled = path.join(dir, 'garbled');
    fs.mkdirSync(garbled);
    fs.writeFileSync(
      path.join(garbled, 'folio.sqlite'),
      'not a database, but long enough to be read as a header '.repeat(4),
    );
    try {
      const start = (env: Record<string, string>) =>
        run(process.execPath, [BIN, 'start'], { FOLIO_DATA_DIR: dir, PORT: '0', ...env }, dir);
      const cases: [Record<string, string>, number, RegExp][] = [
        [
          { HOST: '999.1.1.1' },
          2,
          /^folio start: HOST="999\.1\.1\.1" PORT=0 cannot be listened on: .*ENOTFOUND/,
        ],
        // mkdirSync's `recursive` never returns for this path; the start-up must not hang.
        [
          { FOLIO_DATA_DIR: '/proc/folio-data' },
          2,
          /^folio start: FOLIO_DATA_DIR="\/proc\/folio-data" cannot be used: ENOENT/,
        ],
        [
          { FOLIO_DATA_DIR: path.join(file, 'sub') },
          2,
          /^folio start: FOLIO_DATA_DIR=".*" cannot be used: ENOTDIR/,
        ],
        [
          { FOLIO_DATA_DIR: garbled },
          2,
          /^folio start: FOLIO_DATA_DIR=".*garbled" cannot be used: .*folio\.sqlite: file is not a database/,
        ],
        [
          { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/folio' },
          1,
          /^folio start: DATABASE_URL: cannot use postgres:\/\/postgres@127\.0\.0\.1:1\/folio: .*ECONNREFUSED/,
        ],
      ];
      for (const [env, code, line] of cases) {
        const exit = await start(env);
        const lines = exit.stderr.trim().split('\n');
        assert.equal(exit.code, code, `${JSON.stringify(env)}: ${exit.stderr}`);
        assert.match(lines.at(-1)!, line);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a reader that goes away (folio export | head) ends the export quietly, as cat would', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-pipe-'));
    try {
      const env = { FOLIO_DATA_DIR: dir };
      const created = await run(
        process.execPath,
        [BIN, 'projects', 'create', '--name', 'Pipe', '--json'],
        env,
        dir,
      );
      const projectId = JSON.parse(created.stdout).id as string;
      const lines = Array.from({ length: 400 }, (_, i) =>
        JSON.stringify({
          id: `a${i}`,
          slug: `s${i}`,
          title: `Title ${i} ${'x'.repeat(400)}`,
          blocks: [],
          published: true,
        }),
      );
      fs.writeFileSync(path.join(dir, 'in.ndjson'), `${lines.join('\n')}\n`);
      const imported = await run(
        process.execPath,
        [BIN, 'import', 'in.ndjson', '--project', projectId],
        env,
        dir,
      );
      assert.equal(imported.code, 0, imported.stderr);

      const child = spawn(process.execPath, [BIN, 'export', '--project', projectId], {
        env: { ...process.env, LOG_LEVEL: 'warn', ...env },
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      // As head does: read a little, then close the pipe.
      child.stdout.once('data', () => child.stdout.destroy());
      const code = await new Promise((resolve) => child.on('exit', resolve));
      assert.equal(stderr, '');
      assert.equal(code, 141);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an unknown command exits 2 with one line on stderr', async () => {
    const exit = await run(process.execPath, [BIN, 'frobnicate'], {}, os.tmpdir());
    assert.equal(exit.code, 2);
    assert.equal(exit.stderr, 'folio: unknown command "frobnicate"; see `folio --help`\n');
  });
});

for (const dialect of DIALECTS) {
  describe(`folio as a real process [${dialect}]`, () => {
    let database: TestDatabase;
    let dir: string;
    let env: Record<string, string>;
    beforeEach(async () => {
      database = await createTestDatabase(dialect);
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-cli-'));
      env = cliEnv(database);
    });
    afterEach(async () => {
      await database.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    const folio = (...args: string[]) => run(process.execPath, [BIN, ...args], env, dir);

    test('migrate exits once its work is done, with no connection holding the process', async () => {
      const started = performance.now();
      const exit = await folio('migrate');
      assert.equal(exit.code, 0, exit.stderr);
      // Its pooled connection sat idle for the pool's idle timeout (10 s) before the exit.
      const ms = performance.now() - started;
      assert.ok(ms < 7_000, `folio migrate took ${Math.round(ms)} ms to exit`);
    });

    // A PostgreSQL lock holds the export at its first read, after it opened its partial file:
    // the signal surely comes mid-export. (SQLite's readers are never held by a writer.)
    test('Ctrl-C during export --output leaves no partial file, and the shell sees the signal', {
      skip: dialect !== 'postgres' && 'a reader can be held only on PostgreSQL',
    }, async () => {
      const created = await folio('projects', 'create', '--name', 'Held', '--json');
      const projectId = JSON.parse(created.stdout).id as string;
      const partials = () => fs.readdirSync(dir).filter((name) => name.includes('.partial-'));
      await database.db.transaction().execute(async (trx) => {
        await sql`lock table articles in access exclusive mode`.execute(trx);
        const child = spawn(
          process.execPath,
          [BIN, 'export', '--project', projectId, '--output', 'out.ndjson'],
          {
            env: { ...process.env, LOG_LEVEL: 'warn', FOLIO_DEMO: 'false', ...env },
            cwd: dir,
            stdio: 'ignore',
          },
        );
        const exited = new Promise<[number | null, string | null]>((resolve) =>
          child.on('exit', (code, signal) => resolve([code, signal])),
        );
        const deadline = Date.now() + 20_000;
        while (partials().length === 0 && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 20));
        assert.equal(partials().length, 1, 'the export opened its partial file');
        child.kill('SIGINT');
        const [code, signal] = await exited;
        assert.deepEqual({ code, signal }, { code: null, signal: 'SIGINT' });
      });
      assert.deepEqual(fs.readdirSync(dir), []);
    });

    test('projects create --json prints the project on stdout', async () => {
      const exit = await folio('projects', 'create', '--name', 'From a shell', '--json');
      assert.equal(exit.code, 0, exit.stderr);
      const project = JSON.parse(exit.stdout);
      assert.match(project.id, /^prj_/);
      assert.equal(project.name, 'From a shell');
      assert.equal((await countRows(database.db)).projects, 1);
    });

    test('import with one invalid line exits 1 and writes nothing; --continue-on-error writes the valid lines', async () => {
      const created = await folio('projects', 'create', '--name', 'Blog', '--json');
      const projectId = JSON.parse(created.stdout).id;
      const lines = [
        { id: 'one', slug: 'one', title: 'One', blocks: [], published: true },
        { id: 'two', slug: 'two', title: 'Two', blocks: [{ type: 'quote' }] },
        { id: 'three', slug: 'three', title: 'Three', blocks: [] },
      ];
      fs.writeFileSync(
        path.join(dir, 'articles.ndjson'),
        lines.map((line) => JSON.stringify(line)).join('\n'),
      );

      const refused = await folio('import', 'articles.ndjson');
      assert.equal(refused.code, 1);
      assert.match(
        refused.stdout,
        /^Nothing was imported into project prj_\w+: 0 created, 0 updated, 0 unchanged, 1 invalid\./,
      );
      assert.match(refused.stdout, /line 2 \(id two\): blocks\/0\/content is required/);
      assert.equal(refused.stderr, 'folio import: 1 line not imported (line 2); nothing was written\n');
      assert.equal((await countRows(database.db)).articles, 0);

      const partial = await folio(
        'import',
        'articles.ndjson',
        '--continue-on-error',
        '--project',
        projectId,
        '--json',
      );
      assert.equal(partial.code, 1);
      const summary = JSON.parse(partial.stdout);
      assert.equal(summary.created, 2);
      assert.deepEqual(
        summary.invalidLines.map((entry: { line: number }) => entry.line),
        [2],
      );
      const exported = await folio('export');
      assert.equal(exported.code, 0, exported.stderr);
      assert.deepEqual(
        exported.stdout
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line).id),
        ['one', 'three'],
      );
    });
  });
}

describe('folio start as a real process', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-cli-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('starts the server, and SIGTERM through the launcher stops it cleanly', async () => {
    const { DATABASE_URL: _ignored, ...inherited } = process.env;
    const child = spawn(process.execPath, [BIN, 'start'], {
      env: { ...inherited, FOLIO_DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'warn', FOLIO_DEMO: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    // Stopped the moment it says it runs, as an impatient operator or a supervisor may: a stop
    // that lands before the signal handlers are installed kills it without its shutdown.
    const running = new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk) => {
        output += chunk;
        if (!output.includes('Folio is running') || child.signalCode || child.killed) return;
        child.kill('SIGTERM');
        resolve();
      });
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const started = await Promise.race([
      running.then(() => true),
      exited.then(() => false),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), 20_000).unref()),
    ]);
    if (!started) child.kill('SIGKILL');
    assert.ok(started, `did not start:\n${output}`);
    assert.equal(await exited, 0, output);
    assert.match(output, /Admin token \(shown once/);
    assert.ok(fs.existsSync(path.join(dir, 'folio.sqlite')));
  });

  test('a server whose launcher is killed outright stops by itself, freeing its port', async () => {
    const { DATABASE_URL: _ignored, ...inherited } = process.env;
    const launcher = spawn(process.execPath, [BIN, 'start'], {
      env: { ...inherited, FOLIO_DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'info', FOLIO_DEMO: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const running = new Promise<void>((resolve) => {
      const read = (chunk: Buffer) => {
        output += chunk;
        if (output.includes('Folio is running')) resolve();
      };
      launcher.stdout.on('data', read);
      launcher.stderr.on('data', read);
    });
    await Promise.race([running, new Promise((resolve) => setTimeout(resolve, 20_000).unref())]);
    const children = fs.readFileSync(`/proc/${launcher.pid}/task/${launcher.pid}/children`, 'utf8');
    const server = Number(children.trim().split(/\s+/)[0]);
    assert.ok(server > 0, `no server process under the launcher:\n${output}`);
    launcher.kill('SIGKILL');
    const alive = () => {
      try {
        process.kill(server, 0);
        return true;
      } catch {
        return false;
      }
    };
    const deadline = Date.now() + 15_000;
    while (alive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    if (alive()) process.kill(server, 'SIGKILL');
    assert.ok(!alive(), `the server outlived its launcher:\n${output}`);
    assert.match(output, /launcher gone/);
  });

  test('a child that dies of a signal takes the launcher with it, so the shell sees the signal', async () => {
    const node = fileURLToPath(new URL('../../bin/node.js', import.meta.url));
    const child = spawn(process.execPath, [node, '-e', 'process.kill(process.pid, "SIGTERM")'], {
      stdio: 'ignore',
    });
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
      child.on('exit', (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
    );
    assert.deepEqual({ code, signal }, { code: null, signal: 'SIGTERM' });
  });
});
