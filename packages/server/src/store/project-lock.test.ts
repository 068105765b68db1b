import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { InsertQueryNode, type Kysely, type KyselyPlugin, type OperationNode, UpdateQueryNode } from 'kysely';
import { migrateToLatest } from '../db/migrate.ts';
import type { Database } from '../db/tables.ts';
import { type ImportItem, importArticles } from '../services/article-transfer.ts';
import { upsertArticle } from '../services/articles.ts';
import { recordEvent } from '../services/events.ts';
import { createProject } from '../services/projects.ts';
import { applyDueSchedules } from '../services/schedules.ts';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../test/databases.ts';
import { inWriteBatch, lockProject, takeChangeSeq, takePreviewSeq } from './project-lock.ts';

const NOW = Date.parse('2026-11-28T12:00:00.000Z');

/**
 * `db` with a count of the UPDATE statements it sends to the projects table, and of the INSERT
 * statements to the events table.
 */
function countingProjectUpdates(db: Kysely<Database>) {
  const counter = { updates: 0, eventInserts: 0 };
  const isTable = (node: OperationNode | undefined, name: string): boolean =>
    node?.kind === 'TableNode' &&
    (node as unknown as { table: { identifier: { name: string } } }).table.identifier.name === name;
  const plugin: KyselyPlugin = {
    transformQuery: ({ node }) => {
      if (UpdateQueryNode.is(node) && isTable(node.table, 'projects')) counter.updates++;
      if (InsertQueryNode.is(node) && isTable(node.into, 'events')) counter.eventInserts++;
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  return { db: db.withPlugin(plugin), counter };
}

for (const dialect of DIALECTS) {
  describe(`a project's write lock and change counter [${dialect}]`, () => {
    let database: TestDatabase;
    let projectId: string;
    beforeEach(async () => {
      database = await createTestDatabase(dialect);
      await migrateToLatest(database.db, dialect);
      projectId = (await createProject({ db: database.db, now: () => NOW }, { name: 'P' })).id;
    });
    afterEach(() => database.close());

    async function counters() {
      const row = await database.db
        .selectFrom('projects')
        .select(['change_seq', 'content_version'])
        .where('id', '=', projectId)
        .executeTakeFirstOrThrow();
      return { changeSeq: Number(row.change_seq), contentVersion: Number(row.content_version) };
    }

    async function numbers() {
      const rows = await database.db
        .selectFrom('articles')
        .select(['id', 'change_seq', 'preview_seq'])
        .where('project_id', '=', projectId)
        .orderBy('preview_seq')
        .execute();
      return rows.map((row) => [row.id, row.change_seq && Number(row.change_seq), Number(row.preview_seq)]);
    }

    test('an atomic import writes the project row twice whatever its size, and numbers each write once', async () => {
      const before = await counters();
      // Published and unpublished articles, and a draft: both kinds of number.
      const items: ImportItem[] = Array.from({ length: 30 }, (_, i) => ({
        line: i + 1,
        id: `a${i}`,
        input: { slug: `a-${i}`, title: `A ${i}`, blocks: [], published: i % 3 !== 0 },
      }));
      items.push({ line: 31, id: 'a1', draft: true, input: { slug: 'a-1-next', title: 'Next', blocks: [] } });
      const { db, counter } = countingProjectUpdates(database.db);
      const results = await importArticles({ db, now: () => NOW }, projectId, items, { atomic: true });
      assert.equal(results.length, 31);
      assert.ok(results.every((result) => 'outcome' in result));
      // The lock, then the counter written back: not two per article. The 20 published
      // articles' events in one statement at the end.
      assert.equal(counter.updates, 2);
      assert.equal(counter.eventInserts, 1);
      assert.equal((await database.db.selectFrom('events').select('id').execute()).length, 20);

      const base = before.changeSeq;
      const expected = items.map((item, i) => {
        const seq = base + i + 1;
        return [item.id, item.draft || i % 3 === 0 ? null : seq, seq];
      });
      // The draft saved last moved a1's preview number, not its served one.
      expected.splice(1, 1);
      expected[expected.length - 1] = ['a1', base + 2, base + 31];
      assert.deepEqual(await numbers(), expected);
      const after = await counters();
      assert.equal(after.changeSeq, base + 31);
      assert.ok(after.contentVersion > before.contentVersion, 'cached answers go stale');

      // The next write, outside any batch, takes the next number.
      await upsertArticle({ db: database.db, now: () => NOW }, projectId, 'b', {
        slug: 'b',
        title: 'B',
        blocks: [],
        published: true,
      });
      assert.equal((await counters()).changeSeq, base + 32);
    });

    test('due schedules of a project are applied with one lock, one write of its counter, one of events', async () => {
      const later = new Date(NOW + 60_000).toISOString();
      for (let i = 0; i < 8; i++) {
        await upsertArticle({ db: database.db, now: () => NOW }, projectId, `s${i}`, {
          slug: `s-${i}`,
          title: `S ${i}`,
          blocks: [],
          publishAt: later,
        });
      }
      const before = await counters();
      const { db, counter } = countingProjectUpdates(database.db);
      const ids = Array.from({ length: 8 }, (_, i) => `s${i}`);
      const applied = await applyDueSchedules({ db, now: () => NOW + 61_000 }, projectId, ids);
      assert.deepEqual(
        applied,
        ids.map((articleId) => ({ articleId, action: 'publish', lateMs: 1_000 })),
      );
      assert.equal(counter.updates, 2);
      assert.equal(counter.eventInserts, 1);
      assert.deepEqual(
        (await numbers()).map(([, change]) => change),
        ids.map((_, i) => before.changeSeq + i + 1),
      );
      assert.equal((await counters()).changeSeq, before.changeSeq + 8);
    });

    test('numbers and events of a failed batch are kept when its transaction commits anyway', async () => {
      const { changeSeq: base } = await counters();
      await database.db.transaction().execute(async (trx) => {
        await assert.rejects(
          inWriteBatch(trx, projectId, async () => {
            assert.equal(await takeChangeSeq(trx, projectId), base + 1);
            assert.equal(await takePreviewSeq(trx, projectId), base + 2);
            await recordEvent(trx, projectId, 'content.created', { id: 'x', slug: 'x' }, NOW);
            throw new Error('the caller catches this');
          }),
          /the caller catches this/,
        );
        await lockProject(trx, projectId);
        assert.equal(await takeChangeSeq(trx, projectId), base + 3);
      });
      assert.equal((await counters()).changeSeq, base + 3);
      // Its deferred event was written too: what committed has its event.
      assert.equal((await database.db.selectFrom('events').select('id').execute()).length, 1);
    });

    test('a batch counts for its own project only, and batches do not nest', async () => {
      const other = (await createProject({ db: database.db, now: () => NOW }, { name: 'Q' })).id;
      await database.db.transaction().execute(async (trx) => {
        await inWriteBatch(trx, projectId, async () => {
          await lockProject(trx, other);
          await takeChangeSeq(trx, other);
          await assert.rejects(
            inWriteBatch(trx, other, async () => {}),
            /already open/,
          );
        });
      });
      const row = await database.db
        .selectFrom('projects')
        .select('change_seq')
        .where('id', '=', other)
        .executeTakeFirstOrThrow();
      assert.equal(Number(row.change_seq), 1);
      assert.equal((await counters()).changeSeq, 0, 'nothing taken, nothing written');
    });
  });
}
