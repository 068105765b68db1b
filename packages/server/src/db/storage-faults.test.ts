import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { createTestDatabase, DIALECTS } from '../test/databases.ts';
import {
  freePort,
  type JsonAnswer,
  kill,
  requestJson,
  type ServerOptions,
  type ServerProcess,
  startServer,
} from '../test/server-process.ts';

/*
 * The database is there but will not store: a full disk, a read-only one, a standby after a
 * failover. A write answers 503 `unavailable` (with Retry-After) that says so, rather than a 500
 * whose cause is lost; the server stays up and keeps serving reads; nothing acknowledged is lost,
 * and nothing refused is half stored.
 */

const ADMIN_TOKEN = 'storage-faults-admin-token-0123';

const cleanups: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Folio {
  process: ServerProcess;
  request(method: string, path: string, token: string, body?: unknown): Promise<JsonAnswer>;
}

async function startFolio(env: Record<string, string>, options: ServerOptions = {}): Promise<Folio> {
  const port = await freePort();
  const process = await startServer(
    { ...env, PORT: String(port), FOLIO_ADMIN_TOKEN: ADMIN_TOKEN, FOLIO_DEMO: 'false' },
    options,
  );
  cleanups.push(() => kill(process));
  return { process, request: (method, path, token, body) => requestJson(port, method, path, token, body) };
}

async function setUpProject(folio: Folio): Promise<{ projectId: string; key: string }> {
  const project = await folio.request('POST', '/admin/v1/projects', ADMIN_TOKEN, { name: 'Storage' });
  assert.equal(project.status, 201);
  const projectId = (project.body!.data as { id: string }).id;
  const key = await folio.request('POST', `/admin/v1/projects/${projectId}/keys`, ADMIN_TOKEN, {
    name: 'site',
  });
  assert.equal(key.status, 201);
  return { projectId, key: (key.body!.data as { key: string }).key };
}

function publish(
  folio: Folio,
  projectId: string,
  id: string,
  text = `The body of ${id}.`,
): Promise<JsonAnswer> {
  return folio.request('PUT', `/admin/v1/projects/${projectId}/articles/${id}`, ADMIN_TOKEN, {
    slug: id,
    title: `Article ${id}`,
    blocks: [{ type: 'paragraph', content: [{ text }] }],
    published: true,
  });
}

function readBySlug(folio: Folio, projectId: string, key: string, slug: string): Promise<JsonAnswer> {
  return folio.request('GET', `/api/v1/projects/${projectId}/content/by-slug/${slug}`, key);
}

/** The 503 of a refused write: JSON `unavailable`, Retry-After, and a message that names the disk. */
function assertCannotStore(answer: JsonAnswer, what: string): void {
  assert.equal(answer.status, 503, `${what}: ${JSON.stringify(answer.body)}`);
  assert.equal(answer.body?.error?.code, 'unavailable', what);
  assert.match(answer.body?.error?.message ?? '', /cannot store changes/, what);
  assert.match(answer.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/, `${what}: Retry-After`);
}

function assertAlive(folio: Folio): void {
  assert.equal(folio.process.child.exitCode, null, `the server exited:\n${folio.process.output()}`);
  assert.equal(folio.process.child.signalCode, null, `the server was killed:\n${folio.process.output()}`);
  assert.doesNotMatch(folio.process.output(), /Unhandled|uncaught/i);
}

describe('the database refuses to store', () => {
  test('sqlite: a full disk refuses a write with 503 and loses nothing acknowledged', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-disk-full-'));
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    // Files cannot grow past 3 MiB, so the database file or its log fills after a few writes.
    const full = await startFolio({ FOLIO_DATA_DIR: dataDir }, { fileSizeLimitKiB: 3 * 1024 });
    const { projectId, key } = await setUpProject(full);

    const acknowledged: string[] = [];
    let refused: { id: string; answer: JsonAnswer } | undefined;
    for (let i = 0; i < 100 && !refused; i++) {
      const id = `a${i}`;
      const answer = await publish(full, projectId, id, `${id} `.repeat(40_000));
      if (answer.status === 201) acknowledged.push(id);
      else refused = { id, answer };
    }
    assert.ok(refused, 'a write past the limit was refused');
    assert.ok(acknowledged.length > 0, 'writes before the limit were stored');
    assertCannotStore(refused.answer, `PUT ${refused.id}`);
    // The request's line is written once it is answered, and reaches this process through a pipe.
    for (let tries = 0; !/the database refused to store a change/.test(full.process.output()); tries++) {
      assert.ok(tries < 100, `no line says the database refused to store:\n${full.process.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Still up, and still reading.
    assertAlive(full);
    for (const id of acknowledged) assert.equal((await readBySlug(full, projectId, key, id)).status, 200, id);
    assert.equal((await full.request('GET', '/readyz', '')).status, 200);
    await kill(full.process);

    // Room again: everything acknowledged is there, the refused write is not, and writes work.
    const roomy = await startFolio({ FOLIO_DATA_DIR: dataDir });
    for (const id of acknowledged)
      assert.equal((await readBySlug(roomy, projectId, key, id)).status, 200, id);
    assert.equal((await readBySlug(roomy, projectId, key, refused.id)).status, 404);
    assert.equal((await publish(roomy, projectId, refused.id)).status, 201);
  });

  test('postgres: a database gone read-only refuses a write with 503 and serves reads', {
    skip: !DIALECTS.includes('postgres'),
  }, async () => {
    const database = await createTestDatabase('postgres');
    cleanups.push(() => database.close());
    const url = database.location.databaseUrl!;
    const name = new URL(url).pathname.slice(1);
    const folio = await startFolio({ DATABASE_URL: url });
    const { projectId, key } = await setUpProject(folio);
    assert.equal((await publish(folio, projectId, 'before')).status, 201);

    const admin = new pg.Client({ connectionString: url });
    admin.on('error', () => {});
    await admin.connect();
    cleanups.push(() => admin.end());
    // As a failover to a standby would: every session from now on is read-only.
    const reconnectAll = () =>
      admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity
           where datname = current_database() and pid <> pg_backend_pid()`,
      );
    await admin.query(`alter database "${name}" set default_transaction_read_only = on`);
    await reconnectAll();

    let answer = await publish(folio, projectId, 'during');
    // The first request may still meet a connection that was just cut.
    for (let i = 0; i < 20 && answer.body?.error?.message?.includes('cannot be reached'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await publish(folio, projectId, 'during');
    }
    assertCannotStore(answer, 'PUT during');
    const read = await readBySlug(folio, projectId, key, 'before');
    assert.equal(read.status, 200, JSON.stringify(read.body) + folio.process.output());
    assertAlive(folio);

    await admin.query(`alter database "${name}" reset default_transaction_read_only`);
    await reconnectAll();
    let after = await publish(folio, projectId, 'during');
    for (let i = 0; i < 20 && after.status === 503; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await publish(folio, projectId, 'during');
    }
    assert.equal(after.status, 201, JSON.stringify(after.body));
    console.log(folio.process.output());
    assertAlive(folio);
  });
});
