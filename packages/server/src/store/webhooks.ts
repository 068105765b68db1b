import type { Kysely, Updateable } from 'kysely';
import type { Database, WebhookRow, WebhooksTable } from '../db/tables.ts';

export async function findWebhook(db: Kysely<Database>, projectId: string): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhooks').selectAll().where('project_id', '=', projectId).executeTakeFirst();
}

/** The webhooks of the given projects (a project without one has no row). */
export async function findWebhooks(db: Kysely<Database>, projectIds: string[]): Promise<WebhookRow[]> {
  if (projectIds.length === 0) return [];
  return db.selectFrom('webhooks').selectAll().where('project_id', 'in', projectIds).execute();
}

/** Writes the project's webhook settings, creating the row on first use. */
export async function saveWebhook(
  db: Kysely<Database>,
  projectId: string,
  patch: Updateable<WebhooksTable> & { updated_at: number },
): Promise<WebhookRow> {
  return db
    .insertInto('webhooks')
    .values({ project_id: projectId, ...patch })
    .onConflict((oc) => oc.column('project_id').doUpdateSet(patch))
    .returningAll()
    .executeTakeFirstOrThrow();
}
