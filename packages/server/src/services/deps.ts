import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { Resolver } from '../webhooks/address-guard.ts';
import type { SecretBox } from '../webhooks/secret-box.ts';

/** What every service function needs: the database and the clock (injectable for tests). */
export interface ServiceDeps {
  db: Kysely<Database>;
  /** Epoch milliseconds. */
  now: () => number;
  /** Called after a transaction that may have recorded events commits: wakes the dispatcher. */
  onCommit?: () => void;
  webhooks?: WebhookPolicy;
}

/** How webhook URLs are checked and secrets kept. */
export interface WebhookPolicy {
  allowPrivate: boolean;
  secretBox: SecretBox;
  resolve?: Resolver;
}

/** Runs `work` in a transaction, then tells the dispatcher that events may be waiting. */
export async function transact<T>(
  deps: ServiceDeps,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  const result = await deps.db.transaction().execute(work);
  deps.onCommit?.();
  return result;
}
