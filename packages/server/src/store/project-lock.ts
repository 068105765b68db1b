import { sql, type Transaction } from 'kysely';
import type { Database, ProjectRow } from '../db/tables.ts';

/**
 * A project's row is its write lock and its change counter. Each write locks the row, then
 * takes the project's next change number from it: writers of one project take numbers one at a
 * time and commit in that order, so a reader never sees number 11 committed while 10 is not.
 *
 * A run of many writes in one transaction (an atomic import, a batch of due schedules) opens a
 * batch: the row is locked once, numbers are counted here, and the row is written once at the
 * end. Updating it for every write left PostgreSQL one row version per write to walk on each
 * next update, so an atomic import slowed down with every article it had written. Other writes
 * that can wait for the end of the batch (its webhook events) are kept with it too
 * (`batchState`), to be written in a few multi-row statements.
 */

interface Batch {
  projectId: string;
  project: ProjectRow;
  changeSeq: number;
  contentChanged: boolean;
  /** Deferred writes by kind, each with what writes them at the end of the batch. */
  deferred: Map<object, { state: unknown; flush: () => Promise<void> }>;
}

const batches = new WeakMap<Transaction<Database>, Batch>();

/**
 * Locks the project's row until the transaction ends, and returns it. A no-op update rather than
 * `select … for update`, which SQLite cannot parse; there, BEGIN IMMEDIATE already admits one
 * writer at a time. Inside a batch of this project, the row the batch locked.
 */
export async function lockProject(trx: Transaction<Database>, id: string): Promise<ProjectRow | undefined> {
  const batch = batchOf(trx, id);
  if (batch) return batch.project;
  return trx
    .updateTable('projects')
    .set({ content_version: sql<number>`content_version` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Takes the project's next change number and bumps its content version (cached answers go
 * stale). Must run after `lockProject`.
 */
export async function takeChangeSeq(trx: Transaction<Database>, projectId: string): Promise<number> {
  const batch = batchOf(trx, projectId);
  if (batch) {
    batch.contentChanged = true;
    return ++batch.changeSeq;
  }
  const row = await trx
    .updateTable('projects')
    .set({
      change_seq: sql<number>`change_seq + 1`,
      content_version: sql<number>`content_version + 1`,
    })
    .where('id', '=', projectId)
    .returning('change_seq')
    .executeTakeFirstOrThrow();
  return Number(row.change_seq);
}

/**
 * Takes the project's next change number for a change only the preview perspective sees (a
 * draft saved or dropped, an unpublished article edited): content keys' cached answers stay.
 * Must run after `lockProject`.
 */
export async function takePreviewSeq(trx: Transaction<Database>, projectId: string): Promise<number> {
  const batch = batchOf(trx, projectId);
  if (batch) return ++batch.changeSeq;
  const row = await trx
    .updateTable('projects')
    .set({ change_seq: sql<number>`change_seq + 1` })
    .where('id', '=', projectId)
    .returning('change_seq')
    .executeTakeFirstOrThrow();
  return Number(row.change_seq);
}

/**
 * Runs `work` as one batch of writes to the project, given the locked row (undefined when there
 * is no such project: `work` runs unbatched). The counter is written back even when `work`
 * fails: a caller that catches the failure and commits must not hand out its numbers twice.
 */
export async function inWriteBatch<T>(
  trx: Transaction<Database>,
  projectId: string,
  work: (project: ProjectRow | undefined) => Promise<T>,
): Promise<T> {
  if (batches.has(trx)) throw new Error('A write batch is already open in this transaction.');
  const project = await lockProject(trx, projectId);
  if (!project) return work(undefined);
  const batch: Batch = {
    projectId,
    project,
    changeSeq: Number(project.change_seq),
    contentChanged: false,
    deferred: new Map(),
  };
  batches.set(trx, batch);
  let result: T;
  try {
    result = await work(project);
  } catch (error) {
    batches.delete(trx);
    // On PostgreSQL the failed statement has aborted the transaction, and these writes fail
    // too; the caller hears the first failure.
    await endBatch(trx, batch).catch(() => {});
    throw error;
  }
  batches.delete(trx);
  await endBatch(trx, batch);
  return result;
}

/**
 * Inside a write batch of the project, the state it keeps for one kind of deferred write
 * (`key`): made by `open` on first use, with the `flush` that writes it when the batch ends, in
 * its transaction. Undefined outside a batch: the caller writes at once.
 */
export function batchState<S>(
  trx: Transaction<Database>,
  projectId: string,
  key: object,
  open: () => { state: S; flush: () => Promise<void> },
): S | undefined {
  const batch = batchOf(trx, projectId);
  if (!batch) return undefined;
  let entry = batch.deferred.get(key);
  if (!entry) {
    entry = open();
    batch.deferred.set(key, entry);
  }
  return entry.state as S;
}

function batchOf(trx: Transaction<Database>, projectId: string): Batch | undefined {
  const batch = batches.get(trx);
  return batch?.projectId === projectId ? batch : undefined;
}

async function endBatch(trx: Transaction<Database>, batch: Batch): Promise<void> {
  for (const { flush } of batch.deferred.values()) await flush();
  const taken = batch.changeSeq - Number(batch.project.change_seq);
  if (taken === 0) return;
  await trx
    .updateTable('projects')
    .set({
      change_seq: batch.changeSeq,
      content_version: sql<number>`content_version + ${batch.contentChanged ? 1 : 0}`,
    })
    .where('id', '=', batch.projectId)
    .execute();
}
