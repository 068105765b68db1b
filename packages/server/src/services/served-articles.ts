import type { Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import * as articles from '../store/articles.ts';
import { inWriteBatch, takeChangeSeq, takePreviewSeq } from '../store/project-lock.ts';
import * as projects from '../store/projects.ts';
import { servedJson } from './article-view.ts';
import { type ServiceDeps, transact } from './deps.ts';
import { recordEvents } from './events.ts';
import { inRuns, WRITE_RUN_BYTES } from './json-runs.ts';

/**
 * Canonical paths, jsonLd URLs and og images depend on the project's site settings, and each
 * article's served JSON is stored built. A settings change therefore rewrites every article: a
 * batch per transaction, so that other writers get turns in between (on SQLite, one connection
 * serves every tenant, and one transaction over a large project held them all). The project
 * row keeps how far the rewrite got (`rewrite_after`), so a rewrite that a stopped process left
 * half-done is finished by the next (`finishRewrites`).
 *
 * Every rewritten article is a change in the feeds; a published one is also a `content.updated`
 * (contract: "a published article's served content changes"), so a site that rebuilds or purges
 * on webhooks follows its new addresses.
 */

export const REWRITE_BATCH = 500;

/** One batch of a rewrite: how many articles it rewrote, and whether none is left. */
export interface RewriteStep {
  rewritten: number;
  done: boolean;
}

/**
 * Rewrites the next `batch` articles of the project for its current settings, in the caller's
 * transaction; its events are stamped by `clock` in the project's write turn.
 */
export async function rewriteNext(
  trx: Transaction<Database>,
  projectId: string,
  clock: () => number,
  batch = REWRITE_BATCH,
): Promise<RewriteStep> {
  return inWriteBatch(trx, projectId, async (project) => {
    if (!project || project.rewrite_after === null) return { rewritten: 0, done: true };
    const after = project.rewrite_after === '' ? undefined : project.rewrite_after;
    // Up to `batch` articles, fewer when they are large: each is parsed to be served again.
    const ids = await articles.listSizedIdsAfterId(trx, projectId, after, batch);
    const run = inRuns(ids, WRITE_RUN_BYTES).next().value ?? [];
    const rows = await articles.rowsOfIds(trx, projectId, run);
    // Published articles first, one number each for both perspectives; then the others, which
    // only the preview perspective shows.
    const ordered = [
      ...rows.filter((row) => row.published === 1),
      ...rows.filter((row) => row.published !== 1),
    ];
    const stamped: Array<{ id: string; served: string; seq: number }> = [];
    for (const row of ordered) {
      const seq =
        row.published === 1 ? await takeChangeSeq(trx, projectId) : await takePreviewSeq(trx, projectId);
      stamped.push({ id: row.id, served: servedJson(row, project), seq });
    }
    await articles.restampServed(trx, projectId, stamped);
    const published = ordered
      .filter((row) => row.published === 1)
      .map((row) => ({ id: row.id, slug: row.slug }));
    await recordEvents(trx, projectId, 'content.updated', published, clock());
    const done = ids.length < batch && run.length === ids.length;
    await projects.setRewriteAfter(trx, projectId, done ? null : run.at(-1)!.id);
    return { rewritten: rows.length, done };
  });
}

/** Rewrites what is left of the project's articles, a transaction per batch; resolves with how many. */
export async function finishRewrite(
  deps: ServiceDeps,
  projectId: string,
  batch = REWRITE_BATCH,
): Promise<number> {
  let rewritten = 0;
  for (;;) {
    const step = await transact(deps, (trx) => rewriteNext(trx, projectId, deps.now, batch));
    rewritten += step.rewritten;
    if (step.done) return rewritten;
  }
}

/** What `finishRewrites` tells of each project whose rewrite it took up. */
export interface RewriteReports {
  finished(projectId: string, articles: number): void;
  /** The rewrite stays pending: the next check takes it up again. */
  failed(projectId: string, error: unknown): void;
}

/**
 * Finishes the rewrites left half-done (a process stopped during one). Rejects only when the
 * check for them fails; a project whose rewrite fails is reported and the others go on.
 */
export async function finishRewrites(deps: ServiceDeps, reports: RewriteReports): Promise<void> {
  const pending = await projects.listProjectsRewriting(deps.db);
  for (const projectId of pending) {
    try {
      reports.finished(projectId, await finishRewrite(deps, projectId));
    } catch (error) {
      reports.failed(projectId, error);
    }
  }
}
