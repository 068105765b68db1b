import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createChangeWatch } from './change-watch.ts';

/** A token source whose reads the test finishes by hand, counting them. */
function manualSource() {
  const reads: Array<PromiseWithResolvers<string>> = [];
  return {
    reads,
    read: () => {
      const read = Promise.withResolvers<string>();
      reads.push(read);
      return read.promise;
    },
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('change watch', () => {
  test('callers of one turn share one read, made after all of them called', async () => {
    const source = manualSource();
    const watch = createChangeWatch(source.read);
    const seen: Array<string | undefined> = [];
    for (let i = 0; i < 3; i++) watch.later((token) => seen.push(token));
    const waited = watch.current();
    assert.equal(source.reads.length, 0, 'no read before the turn ends');
    await turn();
    assert.equal(source.reads.length, 1);
    source.reads[0]!.resolve('t1');
    assert.equal(await waited, 't1');
    assert.deepEqual(seen, ['t1', 't1', 't1']);
  });

  test('a caller during a read waits for the next read, never the one already in flight', async () => {
    const source = manualSource();
    const watch = createChangeWatch(source.read);
    const early = watch.current();
    await turn();
    const late = [watch.current(), watch.current()];
    await turn();
    assert.equal(source.reads.length, 1, 'one read at a time');
    source.reads[0]!.resolve('before');
    assert.equal(await early, 'before');
    await turn();
    assert.equal(source.reads.length, 2, 'the late callers share one read');
    source.reads[1]!.resolve('after');
    assert.deepEqual(await Promise.all(late), ['after', 'after']);
  });

  test('a synchronous source is read at once for a caller that waits, shared for later', async () => {
    let reads = 0;
    const watch = createChangeWatch(() => String(++reads));
    assert.equal(await watch.current(), '1', 'the first read tells what the source is');
    assert.deepEqual(await Promise.all([watch.current(), watch.current()]), ['2', '3']);
    const seen: Array<string | undefined> = [];
    watch.later((token) => seen.push(token));
    watch.later((token) => seen.push(token));
    await turn();
    assert.deepEqual(seen, ['4', '4']);
  });

  test('a failed read answers undefined, to its callers and to those waiting for the next read', async () => {
    let calls = 0;
    const sync = createChangeWatch(() => {
      calls++;
      if (calls === 1) throw new Error('unreadable');
      return 'ok';
    });
    assert.equal(await sync.current(), undefined);
    assert.equal(await sync.current(), 'ok');
    const source = manualSource();
    const watch = createChangeWatch(source.read);
    const failed = watch.current();
    await turn();
    // Waiting for the read after this one: with the database away, it would wait out a read
    // of its own, where no token (reuse nothing) is safe to give at once.
    const during = watch.current();
    source.reads[0]!.reject(new Error('standby'));
    assert.equal(await failed, undefined);
    assert.equal(await during, undefined);
    await turn();
    assert.equal(source.reads.length, 1, 'no read for the callers already answered');
    const next = watch.current();
    await turn();
    source.reads[1]!.resolve('ok');
    assert.equal(await next, 'ok');
  });

  test('a known token answers without a read: later in the check phase, current at once', async () => {
    const source = manualSource();
    let known: string | undefined = 'feed:1';
    const watch = createChangeWatch(source.read, () => known);
    const seen: Array<string | undefined> = [];
    watch.later((token) => seen.push(token));
    watch.later((token) => seen.push(token));
    assert.equal(seen.length, 0, 'the answers of a turn wait for its check phase');
    assert.equal(await watch.current(), 'feed:1');
    await turn();
    assert.deepEqual(seen.slice(), ['feed:1', 'feed:1']);
    assert.equal(source.reads.length, 0, 'the database was not asked');

    // The feed lost its lease before the check phase: the waiting caller gets a read instead.
    watch.later((token) => seen.push(token));
    known = undefined;
    await turn();
    assert.equal(source.reads.length, 1);
    source.reads[0]!.resolve('lsn');
    await turn();
    assert.deepEqual(seen, ['feed:1', 'feed:1', 'lsn']);
    const waited = watch.current();
    await turn();
    assert.equal(source.reads.length, 2);
    source.reads[1]!.resolve('lsn2');
    assert.equal(await waited, 'lsn2');
  });
});
