import type { Kysely } from 'kysely';
import type { ContentKeyRow, Database, KeyKind, NewContentKeyRow, ProjectRow } from '../db/tables.ts';

export async function insertContentKey(db: Kysely<Database>, row: NewContentKeyRow): Promise<ContentKeyRow> {
  return db.insertInto('content_keys').values(row).returningAll().executeTakeFirstOrThrow();
}

/** Keys of a project that still work, oldest first. */
export async function listActiveContentKeys(
  db: Kysely<Database>,
  projectId: string,
): Promise<ContentKeyRow[]> {
  return db
    .selectFrom('content_keys')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
}

/** Revokes a key; false when the project has no such active key. */
export async function revokeContentKey(
  db: Kysely<Database>,
  projectId: string,
  keyId: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('content_keys')
    .set({ revoked_at: now })
    .where('id', '=', keyId)
    .where('project_id', '=', projectId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function touchContentKey(db: Kysely<Database>, keyId: string, now: number): Promise<void> {
  await db.updateTable('content_keys').set({ last_used_at: now }).where('id', '=', keyId).execute();
}

export interface KeyWithProject {
  keyId: string;
  kind: KeyKind;
  revokedAt: number | null;
  lastUsedAt: number | null;
  project: ProjectRow;
}

/** The one indexed lookup that authenticates a delivery request, with the key's project. */
export async function findContentKeyWithProject(
  db: Kysely<Database>,
  keyHash: string,
): Promise<KeyWithProject | undefined> {
  const row = await db
    .selectFrom('content_keys as k')
    .innerJoin('projects as p', 'p.id', 'k.project_id')
    .select([
      'k.id as key_id',
      'k.revoked_at',
      'k.last_used_at',
      'k.kind',
      'p.id',
      'p.name',
      'p.website_url',
      'p.articles_path',
      'p.created_at',
      'p.content_version',
      'p.change_seq',
      'p.preview_url',
      'p.rewrite_after',
    ])
    .where('k.key_hash', '=', keyHash)
    .executeTakeFirst();
  if (!row) return undefined;
  const { key_id, revoked_at, last_used_at, kind, ...project } = row;
  return { keyId: key_id, kind, revokedAt: revoked_at, lastUsedAt: last_used_at, project };
}
