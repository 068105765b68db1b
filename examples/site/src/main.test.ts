import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { readSiteConfig } from './config.ts';
import { startSite } from './main.ts';

const FOLIO = {
  FOLIO_URL: 'http://127.0.0.1:8080',
  FOLIO_PROJECT_ID: 'proj_1',
  FOLIO_CONTENT_KEY: 'folio_ck_x',
};

describe('npm start -w @folio/example-site: where it listens', () => {
  test('this machine only unless HOST says otherwise, as Folio itself', () => {
    assert.equal(readSiteConfig(FOLIO).host, '127.0.0.1');
    assert.equal(readSiteConfig({ ...FOLIO, HOST: '' }).host, '127.0.0.1');
    assert.equal(readSiteConfig({ ...FOLIO, HOST: ' 0.0.0.0 ' }).host, '0.0.0.0');
  });

  test('the server listens on the configured address', async () => {
    const server = await startSite({ ...readSiteConfig(FOLIO), port: 0 });
    try {
      assert.equal((server.address() as AddressInfo).address, '127.0.0.1');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
