import type { AdminArticle, SchedulePatch } from '@folio/schema';
import * as articles from '../store/articles.ts';
import { lockProject } from '../store/projects.ts';
import { toAdminArticle } from './article-view.ts';
import { applyChange, applyDue, findArticleOr404, lockProjectIn, scheduleColumns } from './article-writes.ts';
import { type ServiceDeps, transact } from './deps.ts';

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
    const now = deps.now();
    const site = await lockProjectIn(trx, projectId);
    const existing = await findArticleOr404(trx, projectId, id);
    const side = scheduleColumns(existing, patch);
    const changed = await applyChange(trx, site, existing, { publish: existing.published === 1, side }, now);
    return toAdminArticle(await applyDue(trx, site, changed, now));
  });
}

/**
 * Applies what is due on article `id` now, if anything still is: the row is read again under
 * the project's write lock, so of several processes that found it due, the first applies it
 * and the others find it cleared. False when nothing was due any more.
 */
export async function applyDueSchedule(deps: ServiceDeps, projectId: string, id: string): Promise<boolean> {
  return transact(deps, async (trx) => {
    const site = await lockProject(trx, projectId);
    const row = site && (await articles.findArticle(trx, projectId, id));
    if (!site || !row) return false;
    return (await applyDue(trx, site, row, deps.now())) !== row;
  });
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
   * Told when polling starts to fail (the database cannot be reached, say), once until a poll
   * succeeds again, and of each schedule that could not be applied.
   */
  onError: (error: unknown) => void;
}

const LOOKAHEAD_POLLS = 2;
// Schedules read per poll; more wait for the next one, which comes at once.
const BATCH = 100;

/**
 * Applies schedules as they come due: polls the database for what is due soon and sets a timer
 * for each at its time. Several processes may run one on the same database; each schedule
 * applies once (`applyDueSchedule`). A schedule that came due while no process ran applies at
 * the first poll after start.
 */
export function createScheduler(deps: ServiceDeps, options: SchedulerOptions): Scheduler {
  const pollMs = options.pollMs ?? 1000;
  const lookaheadMs = options.lookaheadMs ?? pollMs * LOOKAHEAD_POLLS;
  const timers = new Map<string, NodeJS.Timeout>();
  let poller: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let stopped = false;

  async function apply(projectId: string, id: string): Promise<boolean> {
    try {
      return await applyDueSchedule(deps, projectId, id);
    } catch (error) {
      // Left due: the next poll tries again.
      options.onError(error);
      return false;
    }
  }

  async function poll(): Promise<number> {
    let applied = 0;
    for (;;) {
      const now = deps.now();
      const due = await articles.listSchedulesDueBy(deps.db, now + lookaheadMs, BATCH);
      let appliedNow = 0;
      for (const schedule of due) {
        const key = `${schedule.project_id}\n${schedule.id}`;
        if (schedule.due <= now) {
          if (await apply(schedule.project_id, schedule.id)) appliedNow++;
        } else if (!timers.has(key) && !stopped) {
          const timer = setTimeout(() => {
            timers.delete(key);
            void apply(schedule.project_id, schedule.id);
          }, schedule.due - now);
          timer.unref();
          timers.set(key, timer);
        }
      }
      applied += appliedNow;
      // A full batch that was all due: more may be waiting behind it.
      if (due.length < BATCH || appliedNow === 0) return applied;
    }
  }

  function runOnce(): Promise<number> {
    running ??= poll().finally(() => {
      running = undefined;
    });
    return running;
  }

  return {
    start() {
      if (poller || stopped) return;
      // A database outage would otherwise be reported once a second until it ends.
      let failing = false;
      const tick = () =>
        void runOnce().then(
          () => {
            failing = false;
          },
          (error: unknown) => {
            if (!failing) options.onError(error);
            failing = true;
          },
        );
      tick();
      poller = setInterval(tick, pollMs);
      poller.unref();
    },
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(poller);
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      await running?.catch(() => {});
    },
  };
}
