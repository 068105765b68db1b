import type { ChangeToken } from '../db/change-feed.ts';

/**
 * The database's change token, read for many callers at once. A caller always gets a token
 * read that started after its call, so a commit that finished before the call has moved it.
 *
 * Shared reads: the callers of one event-loop turn wait for that turn's check phase and share
 * one read; callers that arrive while a read is in flight (a PostgreSQL round trip) share the
 * next one. One round trip, or one `pread` on SQLite, per batch instead of per request.
 */
export interface ChangeWatch {
  /** Calls `then` with a shared read's token (undefined when unreadable: reuse nothing). */
  later(then: (token: string | undefined) => void): void;
  /**
   * The token, for a caller that waits for it anyway: read at once from a synchronous source,
   * since holding each request back to the check phase would bunch all their work, and their
   * garbage, into one turn; shared, like `later`, for an asynchronous one.
   */
  current(): Promise<string | undefined>;
}

/**
 * `known` gives a token without reading anything, when there is one (a PostgreSQL change feed
 * holding its lease): the database is then not asked. `current` callers get it at once, `later`
 * callers in their turn's check phase.
 */
export function createChangeWatch(read: ChangeToken, known?: () => string | undefined): ChangeWatch {
  let waiters: Array<(token: string | undefined) => void> = [];
  let scheduled = false;
  let reading = false;
  // Learnt from the first read.
  let synchronous: boolean | undefined;

  function schedule(): void {
    if (scheduled || reading) return;
    scheduled = true;
    setImmediate(() => void readForWaiters());
  }

  async function readForWaiters(): Promise<void> {
    scheduled = false;
    const served = waiters;
    waiters = [];
    const held = known?.();
    if (held !== undefined) {
      for (const then of served) then(held);
      return;
    }
    reading = true;
    let token: string | undefined;
    try {
      const result = read();
      synchronous = typeof result === 'string';
      token = await result;
    } catch {
      token = undefined;
    }
    reading = false;
    // No token reuses nothing, so it is safe to give at once to those waiting for the next
    // read as well: with the database away, they would each wait out a read of their own.
    const answered = token === undefined ? served.concat(waiters.splice(0)) : served;
    for (const then of answered) then(token);
    if (waiters.length > 0) schedule();
  }

  // Waits for the check phase even when the token is known: the answers of one turn are then
  // written together, after every request of the turn was read, the same batch the SQLite read
  // already makes. Answering each request as it was parsed cost markedly more server CPU per
  // cached answer (BENCHMARKS.md, How the delivery path works, "At most one lookup per request").
  function later(then: (token: string | undefined) => void): void {
    waiters.push(then);
    schedule();
  }

  return {
    later,
    current() {
      const token = known?.();
      if (token !== undefined) return Promise.resolve(token);
      if (!synchronous) return new Promise(later);
      try {
        return Promise.resolve(read() as string);
      } catch {
        return Promise.resolve(undefined);
      }
    },
  };
}
