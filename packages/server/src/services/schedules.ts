import type { AdminArticle, SchedulePatch } from '@folio/schema';
import type { Logger } from 'pino';
import type { ArticleRow } from '../db/tables.ts';
import { createFailureStreak, type FailureStreak } from '../failure-streak.ts';
import * as articles from '../store/articles.ts';
import { inWriteBatch } from '../store/project-lock.ts';
import { toAdminArticle } from './article-view.ts';
import { applyChange, applyDue, findArticleOr404, lockProjectIn, scheduleColumns } from './article-writes.ts';
import { type ServiceDeps, transact } from './deps.ts';
import { inRuns, WRITE_RUN_BYTES } from './json-runs.ts';

/**
 * Scheduled publishing (contract, Part 2): `publishAt` publishes as `POST …/publish` would, its
 * draft included; `unpublishAt` unpublishes. A time at or before now applies in the write
 * itself; later ones are applied by the scheduler of any server or worker process.
 */

/** Sets or clears the schedule of article `id` (`PATCH …/articles/{id}`). */
export async function scheduleArticle(
  deps: ServiceDeps,
  projectId: string,
  id: string,
  patch: SchedulePatch,
): Promise<AdminArticle> {
  return transact(deps, async (trx) => {
    const site = await lockProjectIn(trx, projectId);
    // Read in the project's turn: a time that came due while this write waited applies in it.
    const now = deps.now();
    const existing = await findArticleOr404(trx, projectId, id);
    const side = scheduleColumns(existing, patch);
    const changed = await applyChange(trx, site, existing, { publish: existing.published === 1, side }, now);
    return toAdminArticle(await applyDue(trx, site, changed, now, existing));
  });
}

/** A schedule time that fired: what it did to which article, and how long after its time. */
export interface AppliedSchedule {
  articleId: string;
  action: 'publish' | 'unpublish';
  lateMs: number;
}

/**
 * Applies what is due now on articles `ids` of one project, in one transaction: a burst of
 * schedules set for the same minute costs one lock, one write of the project's counter, one commit
 * and (on PostgreSQL) one barrier, not one of each per article. The rows are read again under the project's write lock, so of
 * several processes that found them due, the first applies them and the others find them
 * cleared. Resolves with what was applied.
 */
export async function applyDueSchedules(
  deps: ServiceDeps,
  projectId: string,
  ids: string[],
): Promise<AppliedSchedule[]> {
  return transact(deps, (trx) =>
    inWriteBatch(trx, projectId, async (site) => {
      if (!site) return [];
      const now = deps.now();
      const rows = new Map(
        (await articles.findArticlesByIds(trx, projectId, ids)).map((row) => [row.id, row]),
      );
      const applied: AppliedSchedule[] = [];
      for (const row of ids.map((id) => rows.get(id))) {
        if (row && (await applyDue(trx, site, row, now)) !== row) applied.push(...dueActions(row, now));
      }
      return applied;
    }),
  );
}

/** The schedule times of `row` that `applyDue` applies at `now`, in its order. */
function dueActions(row: ArticleRow, now: number): AppliedSchedule[] {
  const actions: AppliedSchedule[] = [];
  if (row.publish_at !== null && row.publish_at <= now) {
    actions.push({ articleId: row.id, action: 'publish', lateMs: now - row.publish_at });
  }
  if (row.unpublish_at !== null && row.unpublish_at <= now) {
    actions.push({ articleId: row.id, action: 'unpublish', lateMs: now - row.unpublish_at });
  }
  return actions;
}

export interface Scheduler {
  start(): void;
  /** Applies every schedule due now; resolves with how many articles changed. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

export interface SchedulerOptions {
  /** How often the database is asked for schedules coming due (the idle cost: one query each). */
  pollMs?: number;
  /**
   * Schedules due this far ahead of a poll get a timer of their own, so they apply on time rather
   * than at the next poll; two polls by default.
   */
  lookaheadMs?: number;
  /**
   * Told of each schedule applied (info); of polls that fail (the database cannot be reached,
   * say) and of each article whose schedule cannot be applied, once when it starts, now and then
   * while it lasts, and once when it works again.
   */
  logger: Logger;
  /** Schedules read at a time (`BATCH` by default). */
  batch?: number;
}

const LOOKAHEAD_POLLS = 2;
// A schedule that cannot be applied stays stuck until someone looks: a reminder now and then
// keeps it in view without a line per retry.
const STUCK_REMINDER_MS = 10 * 60_000;
// Schedules read at a time; a poll reads on past them until it has seen every one due.
const BATCH = 100;

/**
 * Applies schedules as they come due: polls the database for what is due soon and wakes at the
 * soonest of those times. Several processes may run one on the same database; each schedule
 * applies once (`applyDueSchedules`). A schedule that came due while no process ran applies at
 * the first poll after start.
 */
export function createScheduler(deps: ServiceDeps, options: SchedulerOptions): Scheduler {
  const pollMs = options.pollMs ?? 1000;
  const batch = options.batch ?? BATCH;
  const lookaheadMs = options.lookaheadMs ?? pollMs * LOOKAHEAD_POLLS;
  let poller: NodeJS.Timeout | undefined;
  let wake: { at: number; timer: NodeJS.Timeout } | undefined;
  let running: Promise<number> | undefined;
  let queued: Promise<number> | undefined;
  let stopped = false;
  const { logger } = options;
  // Once stopping, a failure is the shutdown's, not the schedule's: the next process applies it.
  const polls = createFailureStreak({
    failing: (error, tries) => {
      if (!stopped)
        logger.warn({ err: error, tries }, 'polling for due publishing schedules failed; it is retried');
    },
    recovered: (tries) => logger.info({ tries }, 'polling for due publishing schedules works again'),
  });
  const stuck = createStuckArticles(logger, () => stopped);

  /** The due articles of one project; one at a time when the batch fails, so one cannot hold up the rest. */
  async function apply(projectId: string, ids: string[]): Promise<number> {
    if (stopped) return 0;
    let applied: AppliedSchedule[];
    try {
      applied = await applyDueSchedules(deps, projectId, ids);
    } catch (error) {
      if (ids.length === 1) {
        // Left due: the next poll tries again.
        stuck.failed(projectId, ids[0]!, error);
        return 0;
      }
      let count = 0;
      for (const id of ids) count += await apply(projectId, [id]);
      return count;
    }
    // Committed: each of them is applied, or was no longer due.
    for (const id of ids) stuck.succeeded(projectId, id);
    for (const { articleId, action, lateMs } of applied) {
      logger.info({ projectId, articleId, action, lateMs }, 'publishing schedule applied');
    }
    return new Set(applied.map((schedule) => schedule.articleId)).size;
  }

  async function poll(): Promise<number> {
    let applied = 0;
    const seen = new Set<string>();
    // Read on from the last one seen, not from the start: articles that cannot be applied stay
    // due, and a batch of them would otherwise hide every schedule behind it.
    let after: articles.DueSchedule | undefined;
    for (;;) {
      if (stopped) return applied;
      const now = deps.now();
      const due = await articles.listSchedulesDueBy(deps.db, now + lookaheadMs, batch, after);
      after = due.at(-1);
      let later = false;
      // An article due to be published and unpublished at once is one entry: applied together.
      const byProject = new Map<string, Map<string, articles.DueSchedule>>();
      for (const schedule of due) {
        if (schedule.due > now) {
          wakeAt(schedule.due);
          later = true;
          break;
        }
        const ids = byProject.get(schedule.project_id) ?? new Map();
        byProject.set(schedule.project_id, ids.set(schedule.id, schedule));
        seen.add(stuckKey(schedule.project_id, schedule.id));
      }
      for (const [projectId, schedules] of byProject) {
        // A transaction per run: a batch of large articles, each parsed to be served, outgrows the heap.
        for (const run of inRuns([...schedules.values()], WRITE_RUN_BYTES)) {
          applied += await apply(
            projectId,
            run.map((schedule) => schedule.id),
          );
        }
      }
      if (later || due.length < batch) {
        // Every schedule due now was read: one stuck before and no longer due was cleared or deleted.
        stuck.keepOnly(seen);
        return applied;
      }
    }
  }

  /** Sets the wake-up at `at` unless one comes sooner; schedules due together share it. */
  function wakeAt(at: number): void {
    if (stopped || (wake && wake.at <= at)) return;
    if (wake) clearTimeout(wake.timer);
    const timer = setTimeout(
      () => {
        wake = undefined;
        run();
      },
      Math.max(0, at - deps.now()),
    );
    timer.unref();
    wake = { at, timer };
  }

  /**
   * A poll that starts now; one asked for while another runs follows it, since the running one
   * may have read the clock before what the caller expects to be due.
   */
  function runOnce(): Promise<number> {
    if (!running) {
      running = poll().finally(() => {
        running = undefined;
      });
      return running;
    }
    queued ??= running
      .catch(() => 0)
      .then(() => {
        queued = undefined;
        return runOnce();
      });
    return queued;
  }

  function run(): void {
    runOnce().then(polls.succeeded, polls.failed);
  }

  return {
    start() {
      if (poller || stopped) return;
      run();
      poller = setInterval(run, pollMs);
      poller.unref();
    },
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(poller);
      if (wake) clearTimeout(wake.timer);
      wake = undefined;
      await (queued ?? running)?.catch(() => {});
    },
  };
}

function stuckKey(projectId: string, articleId: string): string {
  return `${projectId}/${articleId}`;
}

/**
 * The articles whose due schedule fails to apply, each with a failure streak of its own: one
 * poisoned article logs once when it starts failing and once when it works again, however often
 * it is retried, and names itself.
 */
function createStuckArticles(logger: Logger, stopping: () => boolean) {
  const streaks = new Map<string, FailureStreak>();
  return {
    failed(projectId: string, articleId: string, error: unknown): void {
      const key = stuckKey(projectId, articleId);
      let streak = streaks.get(key);
      if (!streak) {
        streak = createFailureStreak(
          {
            failing: (err, tries) => {
              if (stopping()) return;
              logger.error(
                { err, projectId, articleId, tries },
                'applying a publishing schedule failed; it is retried',
              );
            },
            recovered: (tries) =>
              logger.info({ projectId, articleId, tries }, 'applying a publishing schedule works again'),
          },
          { remindEveryMs: STUCK_REMINDER_MS },
        );
        streaks.set(key, streak);
      }
      streak.failed(error);
    },
    succeeded(projectId: string, articleId: string): void {
      const key = stuckKey(projectId, articleId);
      streaks.get(key)?.succeeded();
      streaks.delete(key);
    },
    /** Forgets the articles not in `due`: their schedule went away without applying. */
    keepOnly(due: Set<string>): void {
      for (const key of streaks.keys()) if (!due.has(key)) streaks.delete(key);
    },
  };
}
