import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CompiledQuery, Kysely, sql } from 'kysely';
import pg from 'pg';
import { upsertArticle } from '../services/articles.ts';
import { createProject } from '../services/projects.ts';
import {
  latestPreviewQuery,
  listPublishedArticles,
  previewBySlugQuery,
  previewPageQuery,
  slugHolderQuery,
} from '../store/articles.ts';
import { createTestDatabase, DIALECTS, POSTGRES_ADMIN_URL } from '../test/databases.ts';
import { openDatabase } from './connect.ts';
import { migrateToLatest } from './migrate.ts';
import { connectPostgres } from './postgres.ts';
import type { Database } from './tables.ts';

const execFileAsync = promisify(execFile);
const ALL_MIGRATIONS = [
  '0001-initial',
  '0002-webhooks',
  '0003-served-articles',
  '0004-dashboard-sessions',
  '0005-covering-published-order',
  '0006-change-feed',
  '0007-served-lz4',
  '0008-changes-feed',
  '0009-editorial',
  '0010-delivery-resend',
  '0011-webhook-history',
  '0012-admin-order',
  '0013-preview-order',
  '0014-served-rewrite',
  '0015-deliveries-by-project',
  '0016-article-id-order',
  '0017-pending-age',
];
const CHILD = fileURLToPath(new URL('../test/migrate-child.ts', import.meta.url));

for (const dialect of DIALECTS) {
  describe(`migrations [${dialect}]`, () => {
    test('apply on an empty database, then find nothing to do', async () => {
      const database = await createTestDatabase(dialect);
      try {
        assert.deepEqual(await migrateToLatest(database.db, dialect), ALL_MIGRATIONS);
        assert.deepEqual(await migrateToLatest(database.db, dialect), []);
        const tables = (await database.db.introspection.getTables()).map((table) => table.name);
        for (const name of ['projects', 'content_keys', 'articles', 'events', 'settings']) {
          assert.ok(tables.includes(name), `${name} exists`);
        }
      } finally {
        await database.close();
      }
    });

    test('a database a newer version migrated is refused in words that say so', async () => {
      const database = await createTestDatabase(dialect);
      try {
        await migrateToLatest(database.db, dialect);
        await sql`insert into kysely_migration (name, timestamp) values ('0999-from-the-future', '2099-01-01T00:00:00.000Z')`.execute(
          database.db,
        );
        await assert.rejects(migrateToLatest(database.db, dialect), {
          message:
            'this database was migrated by a newer version of Folio (its migration 0999-from-the-future is not one this version has): run that version, or restore the backup taken before the upgrade (README, Upgrading)',
        });
      } finally {
        await database.close();
      }
    });

    test('two processes migrating at once do not break each other', async () => {
      const database = await createTestDatabase(dialect);
      try {
        const env = {
          ...process.env,
          DATABASE_URL: database.location.databaseUrl ?? '',
          FOLIO_DATA_DIR: database.location.dataDir,
          START_AT: String(Date.now() + 1500),
        };
        const run = () =>
          execFileAsync(process.execPath, ['--disable-warning=ExperimentalWarning', CHILD], { env }).then(
            ({ stdout }) => JSON.parse(stdout) as string[],
          );
        const [a, b] = await Promise.all([run(), run()]);
        assert.deepEqual([...a, ...b], ALL_MIGRATIONS, 'applied exactly once');
        const { rows } = await sql<{ n: number | string }>`select count(*) as n from projects`.execute(
          database.db,
        );
        assert.equal(Number(rows[0]!.n), 0);
      } finally {
        await database.close();
      }
    });

    // PostgreSQL alone has a lock to wait on and a query deadline.
    if (dialect === 'postgres')
      test('a migration waits out the lock whatever the query deadline', async () => {
        const database = await createTestDatabase(dialect);
        const url = database.location.databaseUrl!;
        // Another process migrating: it holds the lock longer than the deadline requests get.
        const holder = new pg.Client({ connectionString: url });
        await holder.connect();
        try {
          await holder.query('select pg_advisory_lock(4711001)');
          const handle = await openDatabase({ databaseUrl: url, dataDir: '', databaseTimeoutMs: 300 });
          try {
            const migrating = handle.migrate();
            await new Promise((resolve) => setTimeout(resolve, 1_000));
            await holder.query('select pg_advisory_unlock(4711001)');
            assert.deepEqual(await migrating, ALL_MIGRATIONS);
            // Requests still have the deadline.
            await assert.rejects(sql`select pg_sleep(1)`.execute(handle.db), /Query read timeout/);
          } finally {
            await handle.db.destroy();
          }
        } finally {
          await holder.end();
          await database.close();
        }
      });

    test('a slug claim probes the slug and draft-slug indexes, never the whole project', async () => {
      const database = await createTestDatabase(dialect);
      try {
        await migrateToLatest(database.db, dialect);
        // A project with articles and statistics, as a planner meets it: on empty tables any
        // index that starts with project_id looks as good as the slug's.
        await sql`insert into projects (id, name, created_at) values ('p', 'P', 0)`.execute(database.db);
        for (let i = 0; i < 300; i++) {
          await sql`insert into articles (project_id, id, slug, title, blocks, seo, related, updated_at, created_at)
            values ('p', ${`id-${i}`}, ${`slug-${i}`}, 'T', '[]', '{}', '[]', ${i}, ${i})`.execute(
            database.db,
          );
        }
        await sql`analyze`.execute(database.db);
        if (dialect === 'postgres') await sql`set enable_seqscan = off`.execute(database.db);
        const query = slugHolderQuery(database.db, 'p', 'a-slug', 'an-id').compile();
        const explain = dialect === 'sqlite' ? 'explain query plan ' : 'explain ';
        const plan = await database.db.executeQuery(
          CompiledQuery.raw(explain + query.sql, [...query.parameters]),
        );
        const text = JSON.stringify(plan.rows);
        assert.match(text, /articles_draft_slug/, text);
        if (dialect === 'sqlite') assert.match(text, /project_id=\? AND slug=\?/, text);
        else assert.match(text, /Index Cond: \(\(project_id = [^)]*\) AND \(slug = /, text);
      } finally {
        await database.close();
      }
    });

    test('preview reads probe indexes: the preview order without a sort, slugs without a walk', async () => {
      const database = await createTestDatabase(dialect);
      try {
        await migrateToLatest(database.db, dialect);
        // Every shape of the preview order: never published (some with a draft), published,
        // and unpublished after being published.
        await sql`insert into projects (id, name, created_at) values ('p', 'P', 0)`.execute(database.db);
        for (let i = 0; i < 300; i++) {
          const publishedAt = i % 3 === 0 ? null : i;
          const draft = i % 5 === 0 ? ['{}', `draft-${i}`, i + 1000] : [null, null, null];
          await sql`insert into articles (project_id, id, slug, title, blocks, seo, related, updated_at,
              created_at, published, published_at, draft, draft_slug, draft_updated_at)
            values ('p', ${`id-${i}`}, ${`slug-${i}`}, 'T', '[]', '{}', '[]', ${i}, ${i}, ${i % 3 === 1 ? 1 : 0},
              ${publishedAt}, ${draft[0]}, ${draft[1]}, ${draft[2]})`.execute(database.db);
        }
        // SQLite plans without statistics, as a Folio database has none; PostgreSQL gathers them.
        if (dialect === 'postgres') await sql`analyze`.execute(database.db);
        if (dialect === 'postgres') await sql`set enable_seqscan = off`.execute(database.db);
        const planOf = async (query: CompiledQuery) => {
          const explain = dialect === 'sqlite' ? 'explain query plan ' : 'explain ';
          const plan = await database.db.executeQuery(
            CompiledQuery.raw(explain + query.sql, [...query.parameters]),
          );
          return JSON.stringify(plan.rows);
        };
        for (const query of [
          previewPageQuery(database.db, 'p', { limit: 20, offset: 40 }).compile(),
          latestPreviewQuery(database.db, 'p', 'id-7', 3).compile(),
        ]) {
          const text = await planOf(query);
          assert.match(text, /articles_preview_order/, text);
          assert.doesNotMatch(text, /TEMP B-TREE|Sort/, text);
        }
        const bySlug = await planOf(previewBySlugQuery(database.db, 'p', 'a-slug').compile());
        assert.match(bySlug, /articles_draft_slug/, bySlug);
        if (dialect === 'sqlite') assert.match(bySlug, /project_id=\? AND slug=\?/, bySlug);
        else assert.match(bySlug, /Index Cond: \(\(project_id = [^)]*\) AND \(slug = /, bySlug);
      } finally {
        await database.close();
      }
    });

    test('the management list order is served by an index, without a sort', async () => {
      const database = await createTestDatabase(dialect);
      try {
        await migrateToLatest(database.db, dialect);
        if (dialect === 'postgres') await sql`set enable_seqscan = off`.execute(database.db);
        const explain = dialect === 'sqlite' ? 'explain query plan ' : 'explain ';
        const plan = await database.db.executeQuery(
          CompiledQuery.raw(
            `${explain}select id from articles where project_id = 'p' order by updated_at desc, id asc limit 20 offset 40`,
          ),
        );
        const text = JSON.stringify(plan.rows);
        assert.match(text, /articles_admin_order/, text);
        assert.doesNotMatch(text, /TEMP B-TREE|Sort/, text);
      } finally {
        await database.close();
      }
    });

    test('the list order is served by an index', async () => {
      const database = await createTestDatabase(dialect);
      try {
        await migrateToLatest(database.db, dialect);
        const plan =
          dialect === 'sqlite'
            ? await sql<{
                detail: string;
              }>`explain query plan select id from articles where project_id = 'p' and published = 1 order by published_at desc, id desc limit 20`.execute(
                database.db,
              )
            : await sql<{
                'QUERY PLAN': string;
              }>`explain select id from articles where project_id = 'p' and published = 1 order by published_at desc, id desc limit 20`.execute(
                database.db,
              );
        const text = JSON.stringify(plan.rows);
        if (dialect === 'sqlite') {
          assert.match(text, /articles_published_order/);
          assert.doesNotMatch(text, /TEMP B-TREE/, 'no sort step');
          // The sitemap's columns come from the index alone, never from the (large) rows.
          const sitemap = await sql<{
            detail: string;
          }>`explain query plan select slug, updated_at, published_at, id from articles where project_id = 'p' and published = 1 and (published_at, id) < (5, 'x') order by published_at desc, id desc limit 2000`.execute(
            database.db,
          );
          assert.match(JSON.stringify(sitemap.rows), /COVERING INDEX articles_published_order/);
        } else {
          // On an empty table PostgreSQL may prefer a scan; the index must at least exist.
          const { rows } = await sql<{
            indexname: string;
          }>`select indexname from pg_indexes where tablename = 'articles'`.execute(database.db);
          assert.ok(
            rows.some((row) => row.indexname === 'articles_published_order'),
            text,
          );
        }
      } finally {
        await database.close();
      }
    });

    if (dialect === 'postgres') {
      test('an article’s served JSON is stored compressed with lz4', async () => {
        const database = await createTestDatabase(dialect);
        try {
          await migrateToLatest(database.db, dialect);
          const project = await createProject({ db: database.db, now: Date.now }, { name: 'P' });
          const text = 'A paragraph long enough to be compressed when stored. '.repeat(200);
          await upsertArticle({ db: database.db, now: Date.now }, project.id, 'a1', {
            slug: 'a1',
            title: 'A',
            blocks: [{ type: 'paragraph', content: [{ text }] }],
          });
          const { rows } = await sql<{
            method: string | null;
          }>`select pg_column_compression(served) as method from articles`.execute(database.db);
          assert.deepEqual(rows, [{ method: 'lz4' }]);
        } finally {
          await database.close();
        }
      });
    }
  });
}

describe('article order on a PostgreSQL database with a locale', {
  skip: !DIALECTS.includes('postgres'),
}, () => {
  test('ties are broken by id as bytes compare, as on SQLite, not as the locale sorts', async () => {
    const name = `folio_test_icu_${process.pid}`;
    const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await admin.connect();
    // Many installs create databases in a locale such as en_US.UTF-8.
    await admin.query(
      `create database ${name} template template0 locale_provider icu icu_locale 'en-US' locale 'C.UTF-8'`,
    );
    const url = new URL(POSTGRES_ADMIN_URL);
    url.pathname = `/${name}`;
    const { dialect, pool } = connectPostgres(url.toString(), 2);
    const db = new Kysely<Database>({ dialect });
    try {
      await migrateToLatest(db, 'postgres');
      await sql`insert into projects (id, name, created_at) values ('p', 'P', 0)`.execute(db);
      // Published together (a scheduled burst): one publishedAt, so the id decides.
      const ids = ['a', 'B', 'b', 'A', '_x', '-x', '0', 'Z', 'aB', 'ab'];
      for (const id of ids) {
        await sql`insert into articles (project_id, id, slug, title, blocks, seo, related, updated_at, created_at, published, published_at)
          values ('p', ${id}, ${`s${id}`}, 'T', '[]', '{}', '[]', 0, 0, 1, 1000)`.execute(db);
      }
      const listed = (await listPublishedArticles(db, 'p', { limit: 100, offset: 0 })).map((row) => row.id);
      const bytewise = [...ids].sort((x, y) => Buffer.compare(Buffer.from(y), Buffer.from(x)));
      assert.deepEqual(listed, bytewise);
    } finally {
      await db.destroy();
      await pool.end().catch(() => {});
      await admin.query(`drop database ${name} with (force)`);
      await admin.end();
    }
  });
});
