import { type Kysely, sql } from 'kysely';
import { openDatabase } from '../packages/server/src/db/connect.ts';
import { migrateToLatest } from '../packages/server/src/db/migrate.ts';
import type { Database } from '../packages/server/src/db/tables.ts';
import { upsertArticle } from '../packages/server/src/services/articles.ts';
import type { ServiceDeps } from '../packages/server/src/services/deps.ts';
import { createProject } from '../packages/server/src/services/projects.ts';
import { inWriteBatch } from '../packages/server/src/store/project-lock.ts';
import { catalogueArticle } from './catalogue.ts';

// Articles per transaction: one commit per batch instead of one per article.
const BATCH = 500;

/**
 * Loads `articles` generated articles into a fresh database through the server's own services
 * (`createProject`, `upsertArticle`), so the stored rows are exactly what the management API
 * would have stored. Returns the project id and how long the load took.
 */
export async function seedCatalogue(options: {
  databaseUrl: string | undefined;
  dataDir: string;
  articles: number;
  websiteUrl: string;
}): Promise<{ projectId: string; ms: number }> {
  const { db, dialect } = await openDatabase({ databaseUrl: options.databaseUrl, dataDir: options.dataDir });
  try {
    await migrateToLatest(db, dialect);
    const project = await createProject(
      { db, now: Date.now },
      { name: 'bench', websiteUrl: options.websiteUrl, articlesPath: '/blog' },
    );
    const started = performance.now();
    for (let first = 0; first < options.articles; first += BATCH) {
      const last = Math.min(options.articles, first + BATCH);
      // One write batch per transaction, as an atomic import: the project row is written once.
      await db.transaction().execute((trx) =>
        inWriteBatch(trx, project.id, async () => {
          for (let i = first; i < last; i++) {
            const { id, input, publishedAt } = catalogueArticle(i);
            await upsertArticle(
              inTransaction(trx, () => publishedAt),
              project.id,
              id,
              input,
            );
          }
        }),
      );
    }
    // Without statistics PostgreSQL plans the by-slug lookup on the partial list index and
    // reads every published row, which made cold by-slug reads crawl. Autovacuum
    // analyzes (and vacuums, which lets the sitemap read the index alone) after a bulk load
    // within a minute, but may be off (as on the test instance).
    if (dialect === 'postgres') await sql`vacuum analyze`.execute(db);
    return { projectId: project.id, ms: performance.now() - started };
  } finally {
    await db.destroy();
  }
}

/**
 * Service deps whose `transaction()` joins the batch's open transaction instead of opening its
 * own (Kysely has no nested transactions); every other call goes to the transaction itself.
 */
function inTransaction(trx: Kysely<Database>, now: () => number): ServiceDeps {
  const db = new Proxy(trx, {
    get(target, property) {
      if (property === 'transaction')
        return () => ({ execute: <T>(work: (t: Kysely<Database>) => Promise<T>) => work(target) });
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { db, now };
}
