import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SERVER_NODE_FLAGS } from './test/server-process.ts';

const CHILD = fileURLToPath(new URL('./test/shutdown-child.ts', import.meta.url));

test('a shutdown cut short at the end of its grace says so, naming what was still pending', async () => {
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, CHILD], {
    env: { ...process.env, GRACE_MS: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  while (!output.includes('ready\n')) {
    if (child.exitCode !== null) assert.fail(`the child exited:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  child.kill('SIGTERM');
  assert.equal(await exited, 1);
  const lines = output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.deepEqual(
    lines.map(({ level, msg, signal, pending }) => ({ level, msg, signal, pending })),
    [
      { level: 30, msg: 'shutting down', signal: 'SIGTERM', pending: undefined },
      {
        level: 50,
        msg: 'shutting down did not finish within its grace; exiting without it',
        signal: 'SIGTERM',
        pending: ['stuck'],
      },
    ],
  );
  assert.equal(output.replace(/^(ready|\{.*)$/gm, '').trim(), '', 'nothing but JSON lines');
});
