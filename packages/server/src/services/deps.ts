import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';

/** What every service function needs: the database and the clock (injectable for tests). */
export interface ServiceDeps {
  db: Kysely<Database>;
  /** Epoch milliseconds. */
  now: () => number;
}

/** Epoch milliseconds → the contract's ISO 8601 UTC string with milliseconds. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
