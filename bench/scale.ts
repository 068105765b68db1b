import { type Kysely, sql } from 'kysely';
import { openDatabase } from '../packages/server/src/db/connect.ts';
import type { Database } from '../packages/server/src/db/tables.ts';
import { getPreviewArticle, listPreviewArticles } from '../packages/server/src/services/preview.ts';
import { updateProject } from '../packages/server/src/services/projects.ts';
import { selectDueDeliveries } from '../packages/server/src/store/webhook-deliveries.ts';
import { seedCatalogue } from './seed.ts';
import { prepareStore } from './stores.ts';

/**
 * What a large project costs the reads and writes whose work once grew with it: the preview
 * perspective's pages, by-slug reads and misses; a webhook claim past another project's
 * backlog; and a site settings change, with how long a query from elsewhere waited meanwhile.
 */
export interface ScaleReport {
  database: string;
  articles: number;
  /** Medians of several calls, milliseconds. */
  previewFirstPageMs: number;
  previewMiddlePageMs: number;
  previewBySlugMs: number;
  previewMissMs: number;
  /** Deliveries due in the busy project that the claim skips. */
  backlog: number;
  claimMs: number;
  settingsChangeMs: number;
  /** The longest a one-row query, sent every 5 ms during the settings change, waited. */
  longestWaitMs: number;
}

const REPEATS = 7;

/** A project of `articles` generated articles on a fresh store, measured in-process. */
export async function benchScale(options: {
  databaseUrl: string | undefined;
  articles: number;
}): Promise<ScaleReport> {
  const store = await prepareStore(options.databaseUrl);
  try {
    const { projectId } = await seedCatalogue({
      databaseUrl: store.databaseUrl,
      dataDir: store.dataDir,
      articles: options.articles,
      websiteUrl: 'https://www.example.com',
    });
    const { db } = await openDatabase({ databaseUrl: store.databaseUrl, dataDir: store.dataDir });
    try {
      const deps = { db, now: Date.now };
      const project = await db
        .selectFrom('projects')
        .selectAll()
        .where('id', '=', projectId)
        .executeTakeFirstOrThrow();
      const slug = (
        await db
          .selectFrom('articles')
          .select('slug')
          .where('project_id', '=', projectId)
          .limit(1)
          .executeTakeFirstOrThrow()
      ).slug;
      const middle = Math.max(1, Math.floor(options.articles / 40));
      const previewFirstPageMs = await median(() =>
        listPreviewArticles(deps, project, { page: 1, limit: 20 }),
      );
      const previewMiddlePageMs = await median(() =>
        listPreviewArticles(deps, project, { page: middle, limit: 20 }),
      );
      const previewBySlugMs = await median(() => getPreviewArticle(deps, project, slug));
      const previewMissMs = await median(() =>
        getPreviewArticle(deps, project, 'no-such-article').catch(() => {}),
      );

      const backlog = options.articles;
      const lockRows = store.databaseUrl !== undefined;
      await addBacklog(db, projectId, backlog, lockRows);
      const claimMs = await median(() =>
        db
          .transaction()
          .execute((trx) =>
            selectDueDeliveries(trx, { now: Date.now(), limit: 64, excludeProjects: ['busy'], lockRows }),
          ),
      );

      const { totalMs: settingsChangeMs, longestWaitMs } = await withProbe(db, () =>
        updateProject(deps, projectId, { websiteUrl: 'https://blog.example.org' }),
      );
      return {
        database: store.name,
        articles: options.articles,
        previewFirstPageMs,
        previewMiddlePageMs,
        previewBySlugMs,
        previewMissMs,
        backlog,
        claimMs,
        settingsChangeMs,
        longestWaitMs,
      };
    } finally {
      await db.destroy();
    }
  } finally {
    await store.drop();
  }
}

export function scaleTable(reports: ScaleReport[]): string {
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  const rows = reports.map((r) =>
    [
      r.database,
      r.articles.toLocaleString('en'),
      ms(r.previewFirstPageMs),
      ms(r.previewMiddlePageMs),
      ms(r.previewBySlugMs),
      ms(r.previewMissMs),
      `${ms(r.claimMs)} (${r.backlog.toLocaleString('en')})`,
      ms(r.settingsChangeMs),
      ms(r.longestWaitMs),
    ].join(' | '),
  );
  return [
    '| database | articles | preview list, page 1 | preview list, middle page | preview by-slug | preview miss | claim past a backlog (rows) | settings change | longest wait meanwhile |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map((row) => `| ${row} |`),
  ].join('\n');
}

/** The median time of `REPEATS` calls, after one that warms caches. */
async function median(work: () => Promise<unknown>): Promise<number> {
  await work();
  const times: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(REPEATS / 2)]!;
}

/** `count` due deliveries of another project, "busy", whose receiver has all it may in flight. */
async function addBacklog(
  db: Kysely<Database>,
  projectId: string,
  count: number,
  postgres: boolean,
): Promise<void> {
  await sql`insert into projects (id, name, created_at) values ('busy', 'busy', 0)`.execute(db);
  const now = Date.now();
  const delivery = (id: string, project: string, at: number) => ({
    id,
    project_id: project,
    event_id: `evt_${id}`,
    status: 'pending' as const,
    next_attempt_at: at,
    lock_token: null,
    locked_until: null,
    last_status_code: 503,
    last_error: 'the receiver answered 503 Service Unavailable',
    created_at: at,
    updated_at: at,
  });
  const rows = [
    ...Array.from({ length: count }, (_, i) =>
      delivery(`b${String(i).padStart(7, '0')}`, 'busy', now - count + i),
    ),
    ...Array.from({ length: 10 }, (_, i) => delivery(`p${i}`, projectId, now - 5 + i)),
  ];
  await db.transaction().execute(async (trx) => {
    for (let start = 0; start < rows.length; start += 500) {
      const chunk = rows.slice(start, start + 500);
      const payload = '{"event":"content.updated","data":{"id":"an-article","slug":"an-article"}}';
      await trx
        .insertInto('events')
        .values(
          chunk.map((row) => ({
            id: row.event_id,
            project_id: row.project_id,
            type: 'content.updated',
            payload,
            created_at: row.created_at,
          })),
        )
        .execute();
      await trx.insertInto('webhook_deliveries').values(chunk).execute();
    }
  });
  // As autovacuum would after a bulk load.
  if (postgres) await sql`analyze`.execute(db);
}

/** Runs `work` while a one-row query goes out every 5 ms; the longest any of them waited. */
async function withProbe(
  db: Kysely<Database>,
  work: () => Promise<unknown>,
): Promise<{ totalMs: number; longestWaitMs: number }> {
  let done = false;
  let longestWaitMs = 0;
  const probe = (async () => {
    while (!done) {
      const sent = performance.now();
      await db.selectFrom('projects').select('id').limit(1).execute();
      longestWaitMs = Math.max(longestWaitMs, performance.now() - sent);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  const started = performance.now();
  await work();
  const totalMs = performance.now() - started;
  done = true;
  await probe;
  return { totalMs, longestWaitMs };
}
