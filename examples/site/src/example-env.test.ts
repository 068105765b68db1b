import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../../packages/server/src/config.ts';
import { EXAMPLE_DATA_DIR, exampleFolioEnv, examplePorts, findFreePort } from './example-env.ts';

const REPOSITORY = fileURLToPath(new URL('../../../', import.meta.url));

/** A server on a port the system picks, for a port that is taken. */
async function occupy(): Promise<{ port: number; close: () => Promise<void> }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('npm run example: its own Folio', () => {
  // What a shell set up for `npm start` against PostgreSQL, or a data directory of its own, holds.
  const shell = {
    PATH: '/usr/bin',
    PORT: '8080',
    DATABASE_URL: 'postgres://folio@127.0.0.1:5432/folio',
    FOLIO_DATA_DIR: '/srv/folio',
    FOLIO_BASE_URL: 'https://folio.example.com',
    FOLIO_SECRET_KEY: undefined,
  };

  test("keeps its data in examples/site/data, never npm start's database or address", () => {
    const env = exampleFolioEnv(shell, { port: 45_123, adminToken: 'example-token-of-this-run' });
    const config = loadConfig(env, REPOSITORY);
    assert.equal(config.dataDir, path.join(REPOSITORY, 'examples/site/data'));
    assert.equal(config.dataDir, EXAMPLE_DATA_DIR);
    assert.notEqual(config.dataDir, loadConfig({}, REPOSITORY).dataDir, "npm start's ./data");
    assert.equal(config.databaseUrl, undefined, 'the embedded database, not the PostgreSQL of the shell');
    assert.equal(config.port, 45_123);
    assert.equal(config.baseUrl, 'http://localhost:45123');
    assert.equal(config.demo, true);
    assert.equal(config.webhookAllowPrivate, true);
    assert.equal(config.adminToken, 'example-token-of-this-run');
    assert.equal(env.PATH, '/usr/bin', 'the rest of the environment is passed on');
    assert.ok(!('FOLIO_SECRET_KEY' in env), 'an unset variable stays unset');
  });

  test('Folio takes FOLIO_PORT, else a free port, never 8080 by default', async () => {
    assert.deepEqual(await examplePorts({ FOLIO_PORT: '8181', PORT: '3100' }), { folio: 8181, site: 3100 });
    const { folio } = await examplePorts({ PORT: '3100' });
    assert.notEqual(folio, 8080);
    assert.ok(folio > 0);
    await assert.rejects(examplePorts({ FOLIO_PORT: 'eighty' }), /FOLIO_PORT="eighty" is not a port number/);
    await assert.rejects(examplePorts({ PORT: '70000' }), /PORT="70000" is not a port number/);
  });

  test('findFreePort gives the preferred port when free, another when it is taken', async () => {
    const taken = await occupy();
    try {
      const other = await findFreePort(taken.port);
      assert.notEqual(other, taken.port);
      const probe = await occupy();
      await probe.close();
      assert.equal(await findFreePort(probe.port), probe.port);
      // Free: the example can listen there.
      const server = net.createServer();
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(other, resolve));
      await new Promise((resolve) => server.close(resolve));
    } finally {
      await taken.close();
    }
  });
});
