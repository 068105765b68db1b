import { type Kysely, sql, type Transaction } from 'kysely';
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
 *
 * With no project to skip, one walk of the due index. A project is skipped when it has all the
 * deliveries in flight it may, most often because it has a backlog, and a walk in due order
 * would pass every row of that backlog on each claim (on SQLite, with the event loop held). So
 * then the projects with pending deliveries are found one index probe each, and the others'
 * oldest due deliveries are read project by project.
 */
export async function selectDueDeliveries(
  trx: Transaction<Database>,
  options: { now: number; limit: number; excludeProjects: string[]; lockRows: boolean },
): Promise<Array<Pick<DeliveryRow, 'id' | 'project_id'>>> {
  const { now, limit, lockRows } = options;
  if (options.excludeProjects.length === 0) {
    const walk = dueQuery(trx, now).select(['id', 'project_id']).limit(limit);
    return (lockRows ? walk.forUpdate().skipLocked() : walk).execute();
  }
  const skipped = new Set(options.excludeProjects);
  const projects = (await listPendingProjects(trx)).filter((id) => !skipped.has(id));
  const rows: Array<Pick<DeliveryRow, 'id' | 'project_id' | 'next_attempt_at'>> = [];
  for (let start = 0; start < projects.length; start += PROJECTS_PER_STATEMENT) {
    const heads = dueHeadsQuery(trx, projects.slice(start, start + PROJECTS_PER_STATEMENT), now, limit);
    rows.push(...(await (lockRows ? heads.forUpdate().skipLocked() : heads).execute()));
  }
  rows.sort((a, b) => a.next_attempt_at! - b.next_attempt_at! || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return rows.slice(0, limit).map(({ id, project_id }) => ({ id, project_id }));
}

// Keeps a statement's compound SELECT well under SQLite's 500 members.
const PROJECTS_PER_STATEMENT = 100;

/** Pending deliveries due by `now` that no claim holds, oldest due first. */
function dueQuery(db: Kysely<Database>, now: number) {
  return db
    .selectFrom('webhook_deliveries')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .orderBy('next_attempt_at')
    .orderBy('id');
}

/**
 * The first `limit` of the given projects' due deliveries, oldest due first: `limit` of each
 * project, each read on the per-project index, then ordered together. For the test that holds
 * it to that index.
 */
export function dueHeadsQuery(db: Kysely<Database>, projectIds: string[], now: number, limit: number) {
  const heads = projectIds.map((projectId) =>
    db
      .selectFrom(dueQuery(db, now).select('id').where('project_id', '=', projectId).limit(limit).as('head'))
      .select('head.id'),
  );
  const union = heads.slice(1).reduce((all, head) => all.unionAll(head), heads[0]!);
  return db
    .selectFrom('webhook_deliveries')
    .select(['id', 'project_id', 'next_attempt_at'])
    .where('id', 'in', union)
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(limit);
}

/**
 * The projects with a pending delivery, due or not: one probe of the per-project index for each
 * (a loose index scan), however many deliveries each has.
 */
export async function listPendingProjects(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await pendingProjectsQuery().execute(db);
  return rows.map((row) => row.project_id);
}

/** The query of `listPendingProjects`, for the test that holds it to its index. */
export function pendingProjectsQuery() {
  return sql<{ project_id: string }>`
    with recursive pending (project_id) as (
      select min(project_id) from webhook_deliveries where status = 'pending'
      union all
      select (
        select min(d.project_id) from webhook_deliveries d
        where d.status = 'pending' and d.project_id > pending.project_id
      ) from pending where pending.project_id is not null
    )
    select project_id from pending where project_id is not null`;
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

/** Gives up the lease on a delivery this claim holds, untouched: any claimer may take it now. */
export async function releaseLease(db: Kysely<Database>, id: string, token: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ lock_token: null, locked_until: null })
    .where('id', '=', id)
    .where('lock_token', '=', token)
    .execute();
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
