import type { Kysely, Transaction } from 'kysely';
import type {
  AttemptRow,
  Database,
  DeliveryRow,
  DeliveryStatus,
  DeliveryUpdate,
  NewAttemptRow,
  NewDeliveryRow,
} from '../db/tables.ts';
import { chunks } from './chunks.ts';

export async function insertDeliveries(db: Kysely<Database>, rows: NewDeliveryRow[]): Promise<void> {
  for (const chunk of chunks(rows)) await db.insertInto('webhook_deliveries').values(chunk).execute();
}

export type DeliveryWithEvent = DeliveryRow & { event_type: string; payload: string };

function selectWithEvent(db: Kysely<Database>) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .selectAll('d')
    .select(['e.type as event_type', 'e.payload']);
}

export async function findDelivery(
  db: Kysely<Database>,
  projectId: string,
  id: string,
): Promise<DeliveryWithEvent | undefined> {
  return selectWithEvent(db).where('d.project_id', '=', projectId).where('d.id', '=', id).executeTakeFirst();
}

/** A page of a project's delivery log, newest first. */
export async function listDeliveries(
  db: Kysely<Database>,
  projectId: string,
  page: { limit: number; offset: number },
): Promise<DeliveryWithEvent[]> {
  // The page's ids first, from the log's index alone: an OFFSET over the join read every skipped
  // delivery and its event, so a deep page cost as much as the whole history before it.
  const ids = db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('project_id', '=', projectId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset);
  return selectWithEvent(db)
    .where('d.id', 'in', ids)
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id', 'desc')
    .execute();
}

export async function countDeliveries(db: Kysely<Database>, projectId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('project_id', '=', projectId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** How many of a project's deliveries created at or after `since` are in each status now. */
export async function countDeliveriesByStatusSince(
  db: Kysely<Database>,
  projectId: string,
  since: number,
): Promise<Array<{ status: DeliveryStatus; count: number }>> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => ['status', eb.fn.countAll<number | string>().as('count')])
    .where('project_id', '=', projectId)
    .where('created_at', '>=', since)
    .groupBy('status')
    .execute();
  return rows.map((row) => ({ status: row.status, count: Number(row.count) }));
}

export async function listAttempts(db: Kysely<Database>, deliveryIds: string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  return db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('delivery_id', 'in', deliveryIds)
    .orderBy('delivery_id')
    .orderBy('attempt')
    .execute();
}

/**
 * A manual retry: a delivery nobody is sending goes back to pending, due at once (a lease that
 * expired is taken back); one whose attempt is in flight keeps its lease and is marked to be
 * sent again once that attempt is recorded. False when there is no such delivery.
 */
export async function requestResend(
  trx: Transaction<Database>,
  projectId: string,
  id: string,
  now: number,
): Promise<boolean> {
  const ofDelivery = trx
    .updateTable('webhook_deliveries')
    .where('project_id', '=', projectId)
    .where('id', '=', id);
  // Each update re-checks the lease, so a claim taken between the two is never taken away.
  for (let tries = 0; tries < 3; tries++) {
    const inFlight = await ofDelivery
      .set({ resend_requested_at: now, updated_at: now })
      .where('lock_token', 'is not', null)
      .where('locked_until', '>=', now)
      .executeTakeFirst();
    if (Number(inFlight.numUpdatedRows) > 0) return true;
    const idle = await ofDelivery
      .set({
        status: 'pending',
        next_attempt_at: now,
        lock_token: null,
        locked_until: null,
        resend_requested_at: null,
        updated_at: now,
      })
      .where((eb) => eb.or([eb('lock_token', 'is', null), eb('locked_until', '<', now)]))
      .executeTakeFirst();
    if (Number(idle.numUpdatedRows) > 0) return true;
  }
  const row = await trx
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Due deliveries nobody holds, oldest due first, skipping the given projects. With `lockRows`
 * (PostgreSQL) the rows are locked `FOR UPDATE SKIP LOCKED`, so concurrent claimers in other
 * processes pass over them; SQLite's IMMEDIATE transaction already serializes claimers.
 */
export async function selectDueDeliveries(
  trx: Transaction<Database>,
  options: { now: number; limit: number; excludeProjects: string[]; lockRows: boolean },
): Promise<Array<Pick<DeliveryRow, 'id' | 'project_id'>>> {
  let query = trx
    .selectFrom('webhook_deliveries')
    .select(['id', 'project_id'])
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', options.now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', options.now)]))
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(options.limit);
  if (options.excludeProjects.length > 0)
    query = query.where('project_id', 'not in', options.excludeProjects);
  if (options.lockRows) query = query.forUpdate().skipLocked();
  return query.execute();
}

/** Takes the lease on the given deliveries and returns them with their events. */
export async function leaseDeliveries(
  trx: Transaction<Database>,
  ids: string[],
  lease: { token: string; until: number; now: number },
): Promise<DeliveryWithEvent[]> {
  if (ids.length === 0) return [];
  await trx
    .updateTable('webhook_deliveries')
    .set({ lock_token: lease.token, locked_until: lease.until, updated_at: lease.now })
    .where('id', 'in', ids)
    .execute();
  return selectWithEvent(trx).where('d.id', 'in', ids).where('d.lock_token', '=', lease.token).execute();
}

/**
 * Records an attempt's outcome, fenced by the lease: only the claim that holds it may finish
 * the delivery. False when the lease was lost (expired and taken by another claimer). A resend
 * asked for while the attempt was in flight then makes the delivery due again at `at`.
 */
export async function finishAttempt(
  trx: Transaction<Database>,
  id: string,
  token: string,
  patch: DeliveryUpdate,
  at: number,
): Promise<boolean> {
  const finished = await trx
    .updateTable('webhook_deliveries')
    .set({ ...patch, lock_token: null, locked_until: null })
    .where('id', '=', id)
    .where('lock_token', '=', token)
    .returning('resend_requested_at')
    .executeTakeFirst();
  if (finished === undefined) return false;
  if (finished.resend_requested_at !== null) {
    await trx
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', next_attempt_at: at, resend_requested_at: null })
      .where('id', '=', id)
      .execute();
  }
  return true;
}

/** Adds one log row per attempt, in one statement. */
export async function insertAttempts(db: Kysely<Database>, rows: NewAttemptRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('webhook_attempts').values(rows).execute();
}
