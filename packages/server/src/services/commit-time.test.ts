import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lockProject } from '../store/project-lock.ts';
import { listEvents } from '../test/assertions.ts';
import { DIALECTS } from '../test/databases.ts';
import { createTestApp, newArticle, START_TIME } from '../test/test-app.ts';

const iso = (ms: number) => new Date(ms).toISOString();

for (const dialect of DIALECTS) {
  test(`a write that waits its turn is stamped when it commits, not when it asked [${dialect}]`, async () => {
    const t = await createTestApp(dialect);
    try {
      const projectId = (await t.createProject()).id;
      const one = (id: string) => `/admin/v1/projects/${projectId}/articles/${id}`;
      await t.admin('PUT', one('a'), newArticle({ slug: 'a', published: true }));
      await t.admin('PUT', one('b'), newArticle({ slug: 'b' }));
      await t.admin('PUT', one('d'), newArticle({ slug: 'd', published: true }));
      const before = (await listEvents(t.db)).length;
      // Another writer of the project (an import, say) holds the project's turn for 10 s.
      const other = t.database.connectAgain();
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let locked!: () => void;
      const lockTaken = new Promise<void>((resolve) => {
        locked = resolve;
      });
      const holder = other.transaction().execute(async (trx) => {
        await lockProject(trx, projectId);
        locked();
        await held;
      });
      await lockTaken;
      const writes = [
        t.admin('PUT', one('a'), newArticle({ slug: 'a', title: 'Changed', published: true })),
        // Due by the time its turn comes: it applies in the write, as any time already passed.
        t.admin('PATCH', one('b'), { publishAt: iso(START_TIME + 5_000) }),
        t.admin('POST', `${one('d')}/unpublish`),
      ];
      await new Promise((resolve) => setTimeout(resolve, 200));
      t.clock.advance(10_000);
      release();
      await holder;
      const answers = await Promise.all(writes);
      await other.destroy();
      assert.equal(answers[0]!.statusCode, 200, answers[0]!.body);
      assert.equal(answers[0]!.json().data.updatedAt, iso(START_TIME + 10_000), 'updatedAt');
      assert.equal(answers[1]!.json().data.published, true, 'publishAt had passed when the write was made');
      const events = (await listEvents(t.db)).slice(before);
      assert.deepEqual(
        events.map((event) => `${event.type} ${event.payload.timestamp}`).sort(),
        ['content.created', 'content.unpublished', 'content.updated'].map(
          (type) => `${type} ${iso(START_TIME + 10_000)}`,
        ),
      );
    } finally {
      await t.close();
    }
  });
}
