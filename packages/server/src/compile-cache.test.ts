import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SERVER_NODE_FLAGS } from './test/server-process.ts';

const PRIME = fileURLToPath(new URL('./compile-cache-prime.ts', import.meta.url));
// The entry and the modules a server loads later, by dialect.
const LOADED = ['./main.ts', './db/sqlite.ts', './db/postgres.ts'].map(
  (file) => new URL(file, import.meta.url).href,
);

/** Loads the server's modules as a server process would, and says whether the stripper loaded. */
function loadsStripper(cacheDir: string): boolean {
  const output = execFileSync(
    process.execPath,
    [
      ...SERVER_NODE_FLAGS,
      '--input-type=module',
      '-e',
      `for (const url of ${JSON.stringify(LOADED)}) await import(url);
       process.stdout.write(String(process.moduleLoadList.some((name) => name.includes('deps/amaro'))));`,
    ],
    // Node's own variable names the cache directory; the preload then leaves it as it is.
    { env: { ...process.env, NODE_COMPILE_CACHE: cacheDir }, encoding: 'utf8' },
  );
  return output === 'true';
}

describe('compile cache', () => {
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-compile-'));
  after(() => fs.rmSync(cacheDir, { recursive: true, force: true }));

  test('once primed, a server process loads no TypeScript stripper', () => {
    assert.equal(loadsStripper(cacheDir), true, 'an empty cache strips every module');
    fs.rmSync(cacheDir, { recursive: true, force: true });
    execFileSync(process.execPath, [...SERVER_NODE_FLAGS, PRIME], {
      env: { ...process.env, NODE_COMPILE_CACHE: cacheDir },
    });
    assert.equal(loadsStripper(cacheDir), false);
  });
});
