import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { SERVER_NODE_FLAGS } from './test/server-process.ts';

const TICK_SHAPE = new URL('../bin/tick-shape.js', import.meta.url).href;

test('a server process keeps the shape of its tick objects through garbage collections', () => {
  const output = execFileSync(
    process.execPath,
    [
      ...SERVER_NODE_FLAGS,
      '--expose-gc',
      '--allow-natives-syntax',
      '--input-type=module',
      '-e',
      `import { executionAsyncResource } from 'node:async_hooks';
       const tick = () => new Promise((resolve) => process.nextTick(() => resolve(executionAsyncResource())));
       const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
       for (let i = 0; i < 3; i++) { await pause(); globalThis.gc(); }
       // The instance the preload ran, holding a tick object since before anything else loaded.
       const { heldTickObjects } = await import(${JSON.stringify(TICK_SHAPE)});
       const held = heldTickObjects.length;
       const later = await tick();
       process.stdout.write(JSON.stringify({ held, sameShape: %HaveSameMap(heldTickObjects[0], later) }));`,
    ],
    { encoding: 'utf8' },
  );
  assert.deepEqual(JSON.parse(output), { held: 1, sameShape: true });
});
