import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Kysely, Migrator } from 'kysely';
import { buildApp } from '../app.ts';
import { createContentKey } from '../services/content-keys.ts';
import { createTestDatabase, DIALECTS } from '../test/databases.ts';
import { MIGRATIONS, migrateToLatest } from './migrate.ts';
import type { Database } from './tables.ts';

const NOW = Date.parse('2026-11-20T10:00:00.000Z');

/** Migrates to `name` and stops there, as a server of that release left the database. */
async function migrateTo(db: Kysely<Database>, name: string): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } });
  const { error } = await migrator.migrateTo(name);
  if (error) throw error;
}

/** An article row as releases before the served column wrote it. */
function oldRow(id: string, published: boolean, at: number) {
  return {
    project_id: 'prj_old',
    id,
    slug: `slug-${id}`,
    title: `Title ${id}`,
    blocks: JSON.stringify([{ type: 'paragraph', content: [{ text: `Body of ${id}.` }] }]),
    seo: '{}',
    related: '[]',
    published: published ? 1 : 0,
    published_at: published ? at : null,
    updated_at: at,
    created_at: at,
  };
}

for (const dialect of DIALECTS) {
  describe(`upgrading a database with articles [${dialect}]`, () => {
    test('after the changes-feed and editorial migrations, both feeds hand a replica every article', async () => {
      const database = await createTestDatabase(dialect);
      try {
        // The state a release before the served column (0003) left behind.
        await migrateTo(database.db, '0002-webhooks');
        // biome-ignore lint/suspicious/noExplicitAny: the schema of an older release
        const old = database.db as Kysely<any>;
        await old
          .insertInto('projects')
          .values({ id: 'prj_old', name: 'Old', website_url: null, articles_path: '', created_at: NOW })
          .execute();
        const rows = [oldRow('a', true, NOW), oldRow('b', true, NOW + 1), oldRow('c', false, NOW + 2)];
        await old.insertInto('articles').values(rows).execute();

        await migrateToLatest(database.db, dialect);
        const deps = { db: database.db, now: () => NOW + 10 };
        const content = (await createContentKey(deps, 'prj_old', 'site')).key;
        const preview = (await createContentKey(deps, 'prj_old', 'preview', 'preview')).key;
        const app = await buildApp({
          db: database.db,
          baseUrl: 'http://folio.test',
          adminCredential: { hash: 'x'.repeat(64), generatedToken: undefined },
          now: deps.now,
        });
        try {
          const sync = async (key: string) => {
            const ids: string[] = [];
            let cursor: string | undefined;
            for (;;) {
              const query = cursor ? `?since=${cursor}&limit=1` : '?limit=1';
              const response = await app.inject({
                method: 'GET',
                url: `/api/v1/projects/prj_old/content/changes${query}`,
                headers: { authorization: `Bearer ${key}` },
              });
              assert.equal(response.statusCode, 200, response.body);
              const page = response.json().data;
              for (const change of page.changes) ids.push(change.type === 'upsert' ? change.article.id : '');
              cursor = page.cursor;
              if (!page.hasMore) return ids.sort();
            }
          };
          assert.deepEqual(await sync(content), ['a', 'b']);
          assert.deepEqual(await sync(preview), ['a', 'b', 'c']);
          // The rows' served JSON is computed for them until their next write.
          const served = await app.inject({
            method: 'GET',
            url: '/api/v1/projects/prj_old/content/by-slug/slug-a',
            headers: { authorization: `Bearer ${content}` },
          });
          assert.equal(served.json().data.title, 'Title a');
          const project = await database.db
            .selectFrom('projects')
            .select('change_seq')
            .executeTakeFirstOrThrow();
          const numbers = await database.db
            .selectFrom('articles')
            .select(['change_seq', 'preview_seq'])
            .execute();
          for (const row of numbers) {
            assert.ok(Number(row.preview_seq) <= Number(project.change_seq), 'numbered within the project');
          }
        } finally {
          await app.close();
        }
      } finally {
        await database.close();
      }
    });
  });
}
