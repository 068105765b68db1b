import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import type { FastifyReply } from 'fastify';
import { AppError } from '../errors.ts';
import { createAnswerSlots, defaultAnswerSlots } from './answer-slots.ts';

/** A reply as the slots see it: its raw response, which closes once. */
function reply() {
  const raw = Object.assign(new EventEmitter(), { closed: false });
  return {
    reply: { raw } as unknown as FastifyReply,
    close() {
      raw.closed = true;
      raw.emit('close');
    },
  };
}

/** Whether `promise` has settled after the pending callbacks ran, and how. */
async function settled(promise: Promise<unknown>): Promise<'held' | 'waiting' | unknown> {
  const waiting = Symbol('waiting');
  const outcome = await Promise.race([
    promise.then(
      () => 'held',
      (error: unknown) => error,
    ),
    new Promise((resolve) => setImmediate(() => resolve(waiting))),
  ]);
  return outcome === waiting ? 'waiting' : outcome;
}

test('past the slots a request waits, and a slot given back goes to the first in line', async () => {
  const slots = createAnswerSlots({ slots: 2, patienceMs: 60_000 });
  const [a, b, c, d] = [reply(), reply(), reply(), reply()];
  await slots.hold(a.reply);
  await slots.hold(b.reply);
  const third = slots.hold(c.reply);
  const fourth = slots.hold(d.reply);
  assert.equal(await settled(third), 'waiting');
  assert.deepEqual(slots.use(), { held: 2, waiting: 2 });

  b.close();
  assert.equal(await settled(third), 'held');
  assert.equal(await settled(fourth), 'waiting');
  a.close();
  assert.equal(await settled(fourth), 'held');
  assert.deepEqual(slots.use(), { held: 2, waiting: 0 });
  c.close();
  d.close();
  assert.deepEqual(slots.use(), { held: 0, waiting: 0 });
});

test('a request that waited its patience out is answered 503 and leaves the line', async () => {
  const slots = createAnswerSlots({ slots: 1, patienceMs: 20 });
  const holder = reply();
  await slots.hold(holder.reply);
  const error = await slots.hold(reply().reply).then(
    () => assert.fail('held a slot that was taken'),
    (error: unknown) => error,
  );
  assert.ok(error instanceof AppError);
  assert.equal(error.status, 503);
  assert.equal(error.code, 'unavailable');
  assert.equal(error.retryAfterSeconds, 1);
  assert.deepEqual(slots.use(), { held: 1, waiting: 0 });

  // The slot, given back, is free again rather than handed to the request that gave up.
  holder.close();
  assert.deepEqual(slots.use(), { held: 0, waiting: 0 });
  const next = reply();
  assert.equal(await settled(slots.hold(next.reply)), 'held');
});

test('each waiter has its whole patience, counted from when it came', async () => {
  const slots = createAnswerSlots({ slots: 1, patienceMs: 400 });
  const holder = reply();
  await slots.hold(holder.reply);
  // Caught at once: each is turned away before the test looks at it.
  const outcome = (held: Promise<void>) =>
    held.then(
      () => 'held',
      (error: unknown) => error,
    );
  const first = outcome(slots.hold(reply().reply));
  // Halfway through the first's patience: both are in line when the first runs out.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const waits = slots.hold(reply().reply);
  const second = outcome(waits);
  assert.ok((await first) instanceof AppError);
  assert.equal(await settled(waits), 'waiting');
  assert.deepEqual(slots.use(), { held: 1, waiting: 1 });
  assert.ok((await second) instanceof AppError);
  assert.deepEqual(slots.use(), { held: 1, waiting: 0 });
  holder.close();
});

test('a reader that leaves in line gives up its place; one that left before asking holds nothing', async () => {
  const slots = createAnswerSlots({ slots: 1, patienceMs: 60_000 });
  const [holder, leaver, patient] = [reply(), reply(), reply()];
  await slots.hold(holder.reply);
  const left = slots.hold(leaver.reply);
  const waits = slots.hold(patient.reply);
  leaver.close();
  assert.ok((await settled(left)) instanceof AppError);
  assert.deepEqual(slots.use(), { held: 1, waiting: 1 });
  holder.close();
  assert.equal(await settled(waits), 'held');

  const gone = reply();
  gone.close();
  assert.ok((await settled(slots.hold(gone.reply))) instanceof AppError);
  assert.deepEqual(slots.use(), { held: 1, waiting: 0 });
});

test('a reply holds one slot however often it asks', async () => {
  const slots = createAnswerSlots({ slots: 2, patienceMs: 60_000 });
  const one = reply();
  await slots.hold(one.reply);
  await slots.hold(one.reply);
  assert.deepEqual(slots.use(), { held: 1, waiting: 0 });
  one.close();
  assert.deepEqual(slots.use(), { held: 0, waiting: 0 });
});

test('the slots follow the heap limit, within bounds', () => {
  const mib = 1024 * 1024;
  assert.equal(defaultAnswerSlots(512 * mib).slots, 16);
  assert.equal(defaultAnswerSlots(96 * mib).slots, 4);
  assert.equal(defaultAnswerSlots(16 * 1024 * mib).slots, 64);
});
