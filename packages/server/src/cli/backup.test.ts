import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, afterEach, beforeEach, describe, test } from 'node:test';
import { cliEnv, runFolio } from '../test/cli-runner.ts';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../test/databases.ts';
import { freePort, type ServerProcess, startServer, stop } from '../test/server-process.ts';

const ADMIN = 'backup-test-admin-token';

/** A Folio server process on a data directory, with the demo project's id and content key. */
async function serve(dataDir: string, demo: boolean) {
  const port = await freePort();
  const server = await startServer({
    PORT: String(port),
    FOLIO_DATA_DIR: dataDir,
    FOLIO_ADMIN_TOKEN: ADMIN,
    FOLIO_DEMO: String(demo),
  });
  const base = `http://127.0.0.1:${port}`;
  return { server, base };
}

function demoCredentials(server: ServerProcess): { project: string; key: string } {
  const project = /Demo project id: (\S+)/.exec(server.output())?.[1];
  const key = /Demo content key \(shown once\): (\S+)/.exec(server.output())?.[1];
  assert.ok(project && key, server.output());
  return { project, key };
}

async function putArticle(base: string, project: string, slug: string): Promise<void> {
  const response = await fetch(`${base}/admin/v1/projects/${project}/articles/${slug}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      slug,
      title: `Article ${slug}`,
      published: true,
      blocks: [{ type: 'paragraph', content: [{ text: `The text of ${slug}.` }] }],
    }),
  });
  assert.ok(response.status === 200 || response.status === 201, await response.text());
}

async function listArticles(base: string, project: string, key: string) {
  const response = await fetch(`${base}/api/v1/projects/${project}/content?limit=100`, {
    headers: { authorization: `Bearer ${key}` },
  });
  assert.equal(response.status, 200);
  const body = (await response.json()) as { data: Array<{ slug: string }>; pagination: { total: number } };
  return {
    bySlug: new Map(body.data.map((article) => [article.slug, article])),
    total: body.pagination.total,
  };
}

describe('folio backup [sqlite]', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-backup-'));
    dirs.push(dir);
    return dir;
  };
  const servers: ServerProcess[] = [];
  after(async () => {
    for (const server of servers) await stop(server);
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a copy taken while a server writes starts a server that serves the same articles', async () => {
    const dataDir = tempDir();
    const original = await serve(dataDir, true);
    servers.push(original.server);
    const { project, key } = demoCredentials(original.server);
    const before = Array.from({ length: 30 }, (_, i) => `before-${i}`);
    for (const slug of before) await putArticle(original.base, project, slug);
    const written = await listArticles(original.base, project, key);

    // Writes keep coming while the copy is taken; the copy holds whichever committed first.
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) await putArticle(original.base, project, `during-${i}`);
    })();
    const backupDir = tempDir();
    const file = path.join(backupDir, 'folio.sqlite');
    const feed = (base: string, since = '') =>
      fetch(`${base}/api/v1/projects/${project}/content/changes${since && `?since=${since}`}`, {
        headers: { authorization: `Bearer ${key}` },
      });
    const cursor = (await (await feed(original.base)).json()).data.cursor as string;
    const run = await runFolio({ FOLIO_DATA_DIR: dataDir }, ['backup', file, '--json']);
    writing = false;
    await writer;
    assert.equal(run.code, 0, run.stderr);
    const summary = run.json();
    assert.equal(summary.output, file);
    assert.equal(summary.bytes, fs.statSync(file).size);
    assert.equal(summary.bytes % summary.pages, 0, 'a whole number of pages');
    assert.deepEqual(fs.readdirSync(backupDir), ['folio.sqlite'], 'nothing beside the copy');
    const check = new DatabaseSync(file, { readOnly: true });
    assert.equal(check.prepare('pragma integrity_check').get()?.integrity_check, 'ok');
    check.close();

    // Kept as it came, to be restored a second time below.
    const pristine = path.join(tempDir(), 'folio.sqlite');
    fs.copyFileSync(file, pristine);
    const restored = await serve(backupDir, false);
    servers.push(restored.server);
    const served = await listArticles(restored.base, project, key);
    assert.ok(served.total >= written.total, `${served.total} < ${written.total}`);
    for (const [slug, article] of written.bySlug) assert.deepEqual(served.bySlug.get(slug), article, slug);
    const now = await listArticles(original.base, project, key);
    for (const [slug, article] of served.bySlug) {
      assert.deepEqual(article, now.bySlug.get(slug), `${slug} is served as the original serves it`);
    }

    // The copy has a history of its own: the original's cursors count changes the copy will
    // number anew, so a replica holding one is told to sync again rather than miss them.
    assert.equal((await feed(original.base, cursor)).status, 200);
    const refused = await feed(restored.base, cursor);
    assert.equal(refused.status, 410);
    assert.equal((await refused.json()).error.code, 'cursor_expired');
    const fresh = (await (await feed(restored.base)).json()).data.cursor as string;
    assert.equal((await feed(restored.base, fresh)).status, 200);

    // The same copy restored again starts yet another history: the first restore's cursors
    // count changes this one will number anew too.
    await putArticle(restored.base, project, 'after-the-first-restore');
    const afterFirst = (await (await feed(restored.base, fresh)).json()).data.cursor as string;
    await stop(restored.server);
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
    fs.copyFileSync(pristine, file);
    const again = await serve(backupDir, false);
    servers.push(again.server);
    assert.equal((await feed(again.base, afterFirst)).status, 410);
  });

  test('an existing file is replaced only with --force; a missing database or directory is an error', async () => {
    const dataDir = tempDir();
    const env = { FOLIO_DATA_DIR: dataDir };
    assert.equal((await runFolio(env, ['migrate'])).code, 0);
    const file = path.join(tempDir(), 'copy.sqlite');
    fs.writeFileSync(file, 'keep me');

    const refused = await runFolio(env, ['backup', file]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /exists; pass --force to replace it/);
    assert.equal(fs.readFileSync(file, 'utf8'), 'keep me');

    const forced = await runFolio(env, ['backup', file, '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stdout, new RegExp(`to ${file}: [\\d,]+ bytes, \\d+ pages\\.`));
    assert.equal(fs.readFileSync(file).subarray(0, 16).toString(), 'SQLite format 3\0');
    assert.deepEqual(fs.readdirSync(path.dirname(file)), ['copy.sqlite']);

    const empty = tempDir();
    const missing = await runFolio({ FOLIO_DATA_DIR: empty }, ['backup', path.join(empty, 'copy.sqlite')]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /There is no database at .*folio\.sqlite/);
    assert.deepEqual(fs.readdirSync(empty), [], 'no database created');

    const nowhere = path.join(tempDir(), 'backups', 'copy.sqlite');
    const noDirectory = await runFolio(env, ['backup', nowhere]);
    assert.equal(noDirectory.code, 1);
    assert.match(noDirectory.stderr, /the directory .*backups does not exist \(create it first\)/);

    for (const live of ['folio.sqlite', 'folio.sqlite-wal']) {
      const onItself = await runFolio(env, ['backup', path.join(dataDir, live), '--force']);
      assert.equal(onItself.code, 1);
      assert.match(onItself.stderr, /is the database being backed up \(or its log\); choose another file/);
    }

    const usage = await runFolio(env, ['backup']);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /missing FILE/);
  });
});

if (DIALECTS.includes('postgres')) {
  describe('folio backup [postgres]', () => {
    let database: TestDatabase;
    beforeEach(async () => {
      database = await createTestDatabase('postgres');
    });
    afterEach(() => database.close());

    test('copies nothing and says to use pg_dump, with a command to run', async () => {
      const file = path.join(os.tmpdir(), `folio-backup-pg-${process.pid}.sqlite`);
      const run = await runFolio(cliEnv(database), ['backup', file, '--json']);
      assert.equal(run.code, 1);
      assert.match(run.stderr, /PostgreSQL.*use pg_dump, e\.g\. pg_dump --format=custom .*"\$DATABASE_URL"/);
      assert.match(run.json().error.message, /pg_restore/);
      assert.equal(fs.existsSync(file), false);
    });
  });
}
