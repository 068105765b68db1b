import type { AdminArticle, DraftInput } from '@folio/schema';
import type { Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import { AppError } from '../errors.ts';
import { draftOf, type StoredDraft, toAdminArticle } from './article-view.ts';
import {
  applyChange,
  applyDue,
  type ContentColumns,
  contentColumns,
  contentDiffers,
  findArticleOr404,
  insertNewArticle,
  lockProjectIn,
  scheduleColumns,
  writeContent,
} from './article-writes.ts';
import { type ServiceDeps, transact } from './deps.ts';

/**
 * Drafts (contract, Part 2): a working version beside what an article serves. Saving one never
 * changes what content keys see and sends no webhook; publishing makes it the served content.
 */

export interface DraftResult {
  article: AdminArticle;
  /** The article did not exist: it was created unpublished, holding the draft. */
  created: boolean;
}

/** A draft save as an import counts it: `changed` is false when the same draft was saved again. */
export interface DraftWrite extends DraftResult {
  changed: boolean;
}

/** Saves the draft of article `id`, creating the article (unpublished) when it is new. */
export async function saveDraft(
  deps: ServiceDeps,
  projectId: string,
  id: string,
  input: DraftInput,
): Promise<DraftResult> {
  return transact(deps, (trx) => saveDraftIn(trx, deps.now, projectId, id, input));
}

/** `saveDraft` inside the caller's transaction, as `upsertArticleIn` (`clock` read in turn). */
export async function saveDraftIn(
  trx: Transaction<Database>,
  clock: () => number,
  projectId: string,
  id: string,
  input: DraftInput,
): Promise<DraftWrite> {
  const content = contentColumns(input);
  return writeContent(trx, projectId, id, content, async (site, existing) => {
    const now = clock();
    const draft = { draft: storedDraft(content), draft_slug: content.slug, draft_updated_at: now };
    if (!existing) {
      // Its stored content is the draft's too: it serves nothing until it is published.
      const schedule = scheduleColumns({ publish_at: null, unpublish_at: null }, input);
      const inserted = await insertNewArticle(
        trx,
        site,
        id,
        { content, published: false, draft, schedule },
        now,
      );
      const row = await applyDue(trx, site, inserted, now);
      return { article: toAdminArticle(row), created: true, changed: true };
    }
    // The same draft saved again changes nothing: its updatedAt stays.
    const current = draftOf(existing);
    const same = current !== undefined && !contentDiffers(current, content);
    const side = { ...(same ? {} : draft), ...scheduleColumns(existing, input) };
    // An article that holds only its draft (never published, its stored content a copy of the
    // draft) keeps that copy in step, so a slug its draft gives up is free for other articles.
    const draftOnly =
      existing.published_at === null && current !== undefined && !contentDiffers(existing, current);
    const follow = draftOnly && !same ? { content } : {};
    const changed = await applyChange(
      trx,
      site,
      existing,
      { ...follow, publish: existing.published === 1, side },
      now,
    );
    const row = await applyDue(trx, site, changed, now, existing);
    // applyChange hands back `existing` itself when there was nothing to change.
    return { article: toAdminArticle(row), created: false, changed: row !== existing };
  });
}

/** Drops the draft of article `id`; 404 when it has none. */
export async function discardDraft(deps: ServiceDeps, projectId: string, id: string): Promise<void> {
  await transact(deps, async (trx) => {
    const site = await lockProjectIn(trx, projectId);
    const existing = await findArticleOr404(trx, projectId, id);
    if (existing.draft === null) throw new AppError('not_found', `Article "${id}" has no draft.`);
    const side = { draft: null, draft_slug: null, draft_updated_at: null };
    await applyChange(trx, site, existing, { publish: existing.published === 1, side }, deps.now());
  });
}

function storedDraft(content: ContentColumns): string {
  const { slug, title, blocks, seo, related } = content;
  const draft: StoredDraft = { slug, title, blocks, seo, related };
  return JSON.stringify(draft);
}
