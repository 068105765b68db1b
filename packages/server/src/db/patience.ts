import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * One bound on how long a piece of work (an HTTP request) waits on the database with nothing
 * from it. On its own, each wait has a bound: for a pooled connection, for a new one, for each
 * statement. A request meets several of them in a row, and facing a frozen database it waited
 * out each in turn, several times `FOLIO_DATABASE_TIMEOUT` in all. Within a patience scope the
 * waits share one bound instead, restarted whenever the database gives something (an answer, a
 * connection), so a request that makes progress is never cut short, however long it runs.
 */
export interface Patience {
  /** How long the current wait may still last under a bound of `boundMs` (0 or less: none). */
  left(boundMs: number): number;
  /** The database gave something: the wait starts over. */
  progress(): void;
}

const scopes = new AsyncLocalStorage<Patience>();

/** A patience whose wait starts now. */
export function createPatience(): Patience {
  let since = performance.now();
  return {
    left: (boundMs) => since + boundMs - performance.now(),
    progress: () => {
      since = performance.now();
    },
  };
}

/** Runs `work`, and what it starts, in a patience scope: a new one, or `patience` entered again. */
export function withPatience<T>(work: () => T, patience: Patience = createPatience()): T {
  return scopes.run(patience, work);
}

/** The current patience scope, if any. */
export function currentPatience(): Patience | undefined {
  return scopes.getStore();
}
