import type { Transaction } from 'kysely';
import type { ArticleRow, Database } from '../db/tables.ts';
import { insertTombstone, takeChangeSeq, takeTombstone } from '../store/changes.ts';

/**
 * What the changes feed keeps of each write, in the writer's transaction and after the
 * project's write lock (`lockProject`): every write a content key can see takes the project's
 * next change number, so numbers follow commit order (see `store/changes.ts`).
 */

/** The feed columns of a new article; a tombstone of its id, if any, is taken over. */
export async function stampNewArticle(
  trx: Transaction<Database>,
  projectId: string,
  id: string,
  published: boolean,
  slug: string,
): Promise<Pick<ArticleRow, 'change_seq' | 'served_slug'>> {
  // At most one feed entry per id: the article row replaces its old tombstone. Unpublished, it
  // keeps the tombstone's number and slug, so a replica that held the old article still hears
  // that it is gone.
  const tombstone = await takeTombstone(trx, projectId, id);
  if (published) return { change_seq: await takeChangeSeq(trx, projectId), served_slug: slug };
  return { change_seq: tombstone?.change_seq ?? null, served_slug: tombstone?.slug ?? null };
}

/**
 * The feed columns of a change to `existing` that a content key sees (it was or will be
 * published); undefined when no key sees it.
 */
export async function stampChange(
  trx: Transaction<Database>,
  existing: ArticleRow,
  publish: boolean,
  slug: string,
): Promise<Pick<ArticleRow, 'change_seq' | 'served_slug'> | undefined> {
  if (!publish && existing.published !== 1) return undefined;
  const change_seq = await takeChangeSeq(trx, existing.project_id);
  // Unpublished, it was last served under the slug it had before this write.
  return { change_seq, served_slug: publish ? slug : existing.slug };
}

/** Leaves a tombstone for a deleted article that a replica may hold. */
export async function recordDeletion(
  trx: Transaction<Database>,
  existing: ArticleRow,
  now: number,
): Promise<void> {
  const { project_id: projectId, id } = existing;
  if (existing.published === 1) {
    const change_seq = await takeChangeSeq(trx, projectId);
    await insertTombstone(trx, {
      project_id: projectId,
      id,
      slug: existing.slug,
      change_seq,
      deleted_at: now,
    });
  } else if (existing.change_seq !== null && existing.served_slug !== null) {
    // Unpublished earlier: the replica heard the delete under that number already, or will;
    // the tombstone keeps it once the row is gone. Nothing served changes: no new number.
    const tombstone = { slug: existing.served_slug, change_seq: existing.change_seq, deleted_at: now };
    await insertTombstone(trx, { project_id: projectId, id, ...tombstone });
  }
}
