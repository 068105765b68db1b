import type { Transaction } from 'kysely';
import type { ArticleRow, Database } from '../db/tables.ts';
import {
  dropPreviewTombstone,
  insertPreviewTombstone,
  insertTombstone,
  takeTombstone,
} from '../store/changes.ts';
import { takeChangeSeq, takePreviewSeq } from '../store/project-lock.ts';
import { draftOf } from './article-view.ts';

/**
 * What the changes feeds keep of each write, in the writer's transaction and after the
 * project's write lock (`lockProject`): every write takes the project's next change number, so
 * numbers follow commit order (see `store/project-lock.ts`). A write a content key can see stamps
 * both perspectives with it (`change_seq`, `preview_seq`); one only the preview perspective
 * shows (a draft, an unpublished article) stamps `preview_seq` alone and leaves content keys'
 * cached answers as they are.
 */

type Stamp = Pick<ArticleRow, 'change_seq' | 'served_slug' | 'preview_seq'>;

/** The feed columns of a new article; tombstones of its id, if any, are taken over. */
export async function stampNewArticle(
  trx: Transaction<Database>,
  projectId: string,
  id: string,
  published: boolean,
  slug: string,
): Promise<Stamp> {
  await dropPreviewTombstone(trx, projectId, id);
  // At most one feed entry per id: the article row replaces its old tombstone. Unpublished, it
  // keeps the tombstone's number and slug, so a replica that held the old article still hears
  // that it is gone.
  const tombstone = await takeTombstone(trx, projectId, id);
  if (published) {
    const seq = await takeChangeSeq(trx, projectId);
    return { change_seq: seq, served_slug: slug, preview_seq: seq };
  }
  return {
    change_seq: tombstone?.change_seq ?? null,
    served_slug: tombstone?.slug ?? null,
    preview_seq: await takePreviewSeq(trx, projectId),
  };
}

/** The feed columns of a change to what `existing` serves or whether it is published. */
export async function stampChange(
  trx: Transaction<Database>,
  existing: ArticleRow,
  publish: boolean,
  slug: string,
  servedSlug = existing.slug,
): Promise<Partial<Stamp>> {
  if (!publish && existing.published !== 1) return stampPreview(trx, existing.project_id);
  const seq = await takeChangeSeq(trx, existing.project_id);
  // Unpublished, it was last served under the slug it had before this write.
  return { change_seq: seq, served_slug: publish ? slug : servedSlug, preview_seq: seq };
}

/** The feed column of a change only the preview perspective shows: a draft saved or dropped. */
export async function stampPreview(
  trx: Transaction<Database>,
  projectId: string,
): Promise<Pick<ArticleRow, 'preview_seq'>> {
  return { preview_seq: await takePreviewSeq(trx, projectId) };
}

/** Leaves tombstones for a deleted article that a replica of either perspective may hold. */
export async function recordDeletion(
  trx: Transaction<Database>,
  existing: ArticleRow,
  now: number,
): Promise<void> {
  const { project_id: projectId, id } = existing;
  let previewSeq: number;
  if (existing.published === 1) {
    const change_seq = await takeChangeSeq(trx, projectId);
    previewSeq = change_seq;
    await insertTombstone(trx, {
      project_id: projectId,
      id,
      slug: existing.slug,
      change_seq,
      deleted_at: now,
    });
  } else {
    previewSeq = await takePreviewSeq(trx, projectId);
    if (existing.change_seq !== null && existing.served_slug !== null) {
      // Unpublished earlier: the replica heard the delete under that number already, or will;
      // the tombstone keeps it once the row is gone. Nothing served changes: no new number.
      const tombstone = { slug: existing.served_slug, change_seq: existing.change_seq, deleted_at: now };
      await insertTombstone(trx, { project_id: projectId, id, ...tombstone });
    }
  }
  await insertPreviewTombstone(trx, {
    project_id: projectId,
    id,
    slug: draftOf(existing)?.slug ?? existing.slug,
    preview_seq: previewSeq,
    deleted_at: now,
  });
}
