import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { whilePartial } from './partial-files.ts';

const NODE = fileURLToPath(new URL('../bin/node.js', import.meta.url));
const MODULE = new URL('./partial-files.ts', import.meta.url).href;

test('a partial file is removed when a signal stops the process, which still dies of it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-partial-'));
  try {
    const partial = path.join(dir, 'backup.db.partial-1');
    const done = path.join(dir, 'done.partial-2');
    const script = `
      import fs from 'node:fs';
      const { whilePartial } = await import(${JSON.stringify(MODULE)});
      fs.writeFileSync(${JSON.stringify(partial)}, 'half');
      whilePartial(${JSON.stringify(partial)});
      // One already renamed: no longer the signal's to remove.
      fs.writeFileSync(${JSON.stringify(done)}, 'whole');
      whilePartial(${JSON.stringify(done)})();
      process.kill(process.pid, 'SIGTERM');
      setTimeout(() => {}, 10_000);
    `;
    const child = spawn(process.execPath, [NODE, '--input-type=module', '-e', script], { stdio: 'ignore' });
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
      child.on('exit', (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
    );
    assert.deepEqual({ code, signal }, { code: null, signal: 'SIGTERM' });
    assert.deepEqual(fs.readdirSync(dir), ['done.partial-2']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('no signal is listened for once every partial file is done', () => {
  const before = ['SIGINT', 'SIGTERM', 'SIGHUP'].map((signal) => process.listenerCount(signal));
  const one = whilePartial('/nowhere/one.partial-1');
  const two = whilePartial('/nowhere/two.partial-1');
  one();
  assert.ok(process.listenerCount('SIGINT') > before[0]!, 'still listening while one is written');
  two();
  assert.deepEqual(
    ['SIGINT', 'SIGTERM', 'SIGHUP'].map((signal) => process.listenerCount(signal)),
    before,
  );
});
