import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { DialectName } from '../../db/connect.ts';
import { createScheduler, type Scheduler } from '../../services/schedules.ts';
import { assertInvalidBody, listEvents } from '../../test/assertions.ts';
import { captureLogs, type LogLine } from '../../test/captured-logs.ts';
import { DIALECTS } from '../../test/databases.ts';
import { createTestApp, newArticle, START_TIME, type TestApp } from '../../test/test-app.ts';

const iso = (ms: number) => new Date(ms).toISOString();
const HOUR = 3_600_000;

/** Makes every update of articles `ids` fail, as a fault in those rows would, until `allowUpdates`. */
async function refuseUpdatesOf(t: TestApp, dialect: DialectName, ...ids: string[]): Promise<void> {
  const when = `old.id in (${ids.map((id) => `'${id}'`).join(', ')})`;
  if (dialect === 'sqlite') {
    await sql
      .raw(
        `create trigger refuse before update on articles when ${when} begin select raise(abort, 'refused'); end`,
      )
      .execute(t.db);
    return;
  }
  await sql
    .raw(
      `create function refuse() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$`,
    )
    .execute(t.db);
  await sql
    .raw(
      `create trigger refuse before update on articles for each row when (${when}) execute function refuse()`,
    )
    .execute(t.db);
}

/** The lines of `lines` with message `msg`, each as its fields named in `fields`. */
function linesSaying(lines: LogLine[], msg: string, fields: string[]): Array<Record<string, unknown>> {
  return lines
    .filter((line) => line.msg === msg)
    .map((line) => Object.fromEntries(fields.map((field) => [field, line[field]])));
}

const FAILED = 'applying a publishing schedule failed; it is retried';
const WORKS_AGAIN = 'applying a publishing schedule works again';
const APPLIED = 'publishing schedule applied';

async function allowUpdates(t: TestApp, dialect: DialectName): Promise<void> {
  await sql
    .raw(dialect === 'sqlite' ? 'drop trigger refuse' : 'drop trigger refuse on articles')
    .execute(t.db);
}

for (const dialect of DIALECTS) {
  describe(`scheduled publishing [${dialect}]`, () => {
    let t: TestApp;
    let projectId: string;
    let key: string;
    let scheduler: Scheduler;
    let logs: ReturnType<typeof captureLogs>;
    beforeEach(async () => {
      t = await createTestApp(dialect);
      projectId = (await t.createProject()).id;
      key = await t.createKey(projectId);
      logs = captureLogs();
      // Timers run on the real clock while the test moves its own: only polls apply schedules here.
      scheduler = createScheduler({ db: t.db, now: t.clock.now }, { lookaheadMs: 0, logger: logs.logger });
    });
    afterEach(async () => {
      await scheduler.stop();
      await t.close();
      const warnings = logs.lines.filter((line) => line.level >= 40);
      assert.deepEqual(warnings, [], 'nothing went wrong unless the test says so');
    });

    const one = (id: string) => `/admin/v1/projects/${projectId}/articles/${id}`;
    const put = (id: string, body: unknown) => t.admin('PUT', one(id), body);
    const patch = (id: string, body: unknown) => t.admin('PATCH', one(id), body);
    const get = async (id: string) => (await t.admin('GET', one(id))).json().data;
    const served = async (slug: string) =>
      (await t.deliver(key, `/api/v1/projects/${projectId}/content/by-slug/${slug}`)).statusCode;
    const eventTypes = async () => (await listEvents(t.db)).map((event) => event.type);

    test('PATCH sets publishAt; at that time the scheduler publishes, fires content.created and clears it', async () => {
      await put('a', newArticle({ slug: 'later' }));
      const set = await patch('a', { publishAt: iso(START_TIME + HOUR) });
      assert.equal(set.statusCode, 200, set.body);
      assert.equal(set.json().data.publishAt, iso(START_TIME + HOUR));
      assert.equal(set.json().data.unpublishAt, null);
      assert.equal(set.json().data.published, false);

      assert.equal(await scheduler.runOnce(), 0, 'nothing is due yet');
      t.clock.advance(HOUR - 1);
      assert.equal(await scheduler.runOnce(), 0, 'a millisecond early');
      assert.equal(await served('later'), 404);
      t.clock.advance(1);
      assert.equal(await scheduler.runOnce(), 1);
      const article = await get('a');
      assert.equal(article.published, true);
      assert.equal(article.publishAt, null, 'a schedule that fired is cleared');
      assert.equal(article.publishedAt, iso(START_TIME + HOUR));
      assert.equal(await served('later'), 200);
      assert.deepEqual(await eventTypes(), ['content.created']);
      assert.equal(await scheduler.runOnce(), 0, 'it applies once');
    });

    test('each schedule applied is logged with its article, what it did and how late', async () => {
      await put('a', newArticle({ slug: 'logged' }));
      await patch('a', { publishAt: iso(START_TIME + HOUR), unpublishAt: iso(START_TIME + HOUR + 500) });
      t.clock.advance(HOUR + 1_234);
      assert.equal(await scheduler.runOnce(), 1);
      const fields = ['level', 'projectId', 'articleId', 'action', 'lateMs'];
      assert.deepEqual(linesSaying(logs.lines, APPLIED, fields), [
        { level: 30, projectId, articleId: 'a', action: 'publish', lateMs: 1_234 },
        { level: 30, projectId, articleId: 'a', action: 'unpublish', lateMs: 734 },
      ]);
    });

    test('unpublishAt unpublishes and fires content.unpublished; both times in one PATCH apply in order', async () => {
      await put('a', newArticle({ slug: 'window' }));
      await patch('a', { publishAt: iso(START_TIME + HOUR), unpublishAt: iso(START_TIME + 2 * HOUR) });
      t.clock.advance(HOUR);
      await scheduler.runOnce();
      assert.equal(await served('window'), 200);
      assert.equal((await get('a')).unpublishAt, iso(START_TIME + 2 * HOUR), 'the other time stays');
      t.clock.advance(HOUR);
      await scheduler.runOnce();
      assert.equal(await served('window'), 404);
      const article = await get('a');
      assert.equal(article.unpublishAt, null);
      assert.deepEqual(await eventTypes(), ['content.created', 'content.unpublished']);
    });

    test('a time at or before now applies at once, in the write that sets it', async () => {
      await put('a', newArticle({ slug: 'now' }));
      const response = await patch('a', { publishAt: iso(START_TIME) });
      assert.equal(response.json().data.published, true);
      assert.equal(response.json().data.publishAt, null);
      assert.equal(await served('now'), 200, 'served as soon as the write answered');
      const created = await put('b', newArticle({ slug: 'past', publishAt: iso(START_TIME - HOUR) }));
      assert.equal(created.statusCode, 201);
      assert.equal(created.json().data.published, true);
      assert.deepEqual(await eventTypes(), ['content.created', 'content.created']);
    });

    test('a scheduled publish publishes the draft, as POST …/publish does', async () => {
      await put('a', newArticle({ slug: 'live', title: 'Old', published: true }));
      const draft = await t.admin('PUT', `${one('a')}/draft`, {
        ...newArticle({ slug: 'live', title: 'New' }),
        publishAt: iso(START_TIME + HOUR),
      });
      assert.equal(draft.json().data.publishAt, iso(START_TIME + HOUR));
      t.clock.advance(HOUR);
      await scheduler.runOnce();
      const article = await get('a');
      assert.equal(article.title, 'New');
      assert.equal(article.draft, null);
      const events = await listEvents(t.db);
      assert.equal(events.at(-1)!.type, 'content.updated');
    });

    test('a manual publish clears publishAt; a manual unpublish clears both', async () => {
      await put('a', newArticle({ slug: 'manual' }));
      await patch('a', { publishAt: iso(START_TIME + HOUR), unpublishAt: iso(START_TIME + 2 * HOUR) });
      const published = (await t.admin('POST', `${one('a')}/publish`)).json().data;
      assert.equal(published.publishAt, null);
      assert.equal(published.unpublishAt, iso(START_TIME + 2 * HOUR));
      await patch('a', { unpublishAt: iso(START_TIME + 3 * HOUR) });
      const unpublished = (await t.admin('POST', `${one('a')}/unpublish`)).json().data;
      assert.equal(unpublished.publishAt, null);
      assert.equal(unpublished.unpublishAt, null);
    });

    test('PATCH with null clears a time; absent keeps it', async () => {
      await put('a', newArticle({ slug: 'keep' }));
      await patch('a', { publishAt: iso(START_TIME + HOUR), unpublishAt: iso(START_TIME + 2 * HOUR) });
      const kept = (await patch('a', { unpublishAt: null })).json().data;
      assert.equal(kept.publishAt, iso(START_TIME + HOUR));
      assert.equal(kept.unpublishAt, null);
      const replaced = (await put('a', newArticle({ slug: 'keep', title: 'Edited' }))).json().data;
      assert.equal(replaced.publishAt, iso(START_TIME + HOUR), 'a live PUT without times keeps them');
    });

    test('polls that keep failing (the database gone) are reported once, not once a poll, and when they work again', async () => {
      // Every poll fails as it would with the database gone: the table it reads is not there.
      await sql`alter table articles rename to articles_gone`.execute(t.db);
      const own = captureLogs();
      const failing = createScheduler({ db: t.db, now: t.clock.now }, { pollMs: 10, logger: own.logger });
      failing.start();
      await new Promise((resolve) => setTimeout(resolve, 200));
      await sql`alter table articles_gone rename to articles`.execute(t.db);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await failing.stop();
      assert.deepEqual(
        own.lines.map((line) => [line.level, line.msg]),
        [
          [40, 'polling for due publishing schedules failed; it is retried'],
          [30, 'polling for due publishing schedules works again'],
        ],
      );
    });

    test('schedules due together apply in one transaction per project, each with its event', async () => {
      const otherProject = (await t.createProject()).id;
      for (let i = 0; i < 12; i++) {
        await put(`a${i}`, newArticle({ slug: `burst-${i}`, publishAt: iso(START_TIME + HOUR) }));
      }
      await t.admin('PUT', `/admin/v1/projects/${otherProject}/articles/b`, {
        ...newArticle({ slug: 'other' }),
        publishAt: iso(START_TIME + HOUR),
      });
      let commits = 0;
      const counted = createScheduler(
        { db: t.db, now: t.clock.now, onCommit: () => commits++ },
        { lookaheadMs: 0, logger: logs.logger },
      );
      t.clock.advance(HOUR);
      assert.equal(await counted.runOnce(), 13);
      assert.equal(commits, 2, 'one commit for each project');
      assert.deepEqual(await eventTypes(), Array(13).fill('content.created'));
      assert.equal(
        (await t.deliver(key, `/api/v1/projects/${projectId}/content`)).json().pagination.total,
        12,
      );
      await counted.stop();
    });

    test('an article that cannot be applied does not hold up the others due with it', async () => {
      for (const id of ['a', 'stuck', 'z'])
        await put(id, newArticle({ slug: id, publishAt: iso(START_TIME + HOUR) }));
      await refuseUpdatesOf(t, dialect, 'stuck');
      t.clock.advance(HOUR);
      assert.equal(await scheduler.runOnce(), 2);
      assert.equal(await served('a'), 200);
      assert.equal(await served('z'), 200);
      assert.equal((await get('stuck')).publishAt, iso(START_TIME + HOUR), 'left due, to be tried again');
      // Retried at every poll, and still in the way of none.
      await put('later', newArticle({ slug: 'later', publishAt: iso(START_TIME + 2 * HOUR) }));
      t.clock.advance(HOUR);
      for (let poll = 0; poll < 5; poll++) await scheduler.runOnce();
      assert.equal(await served('later'), 200);
      const failed = logs.lines.filter((line) => line.msg === FAILED);
      assert.deepEqual(
        failed.map((line) => [line.level, line.projectId, line.articleId, line.tries]),
        [[50, projectId, 'stuck', 1]],
        'reported once, naming the article, however often it is retried',
      );
      assert.match(String((failed[0]!.err as { message: string }).message), /refused/);
      await allowUpdates(t, dialect);
      assert.equal(await scheduler.runOnce(), 1);
      assert.equal(await served('stuck'), 200);
      assert.deepEqual(linesSaying(logs.lines, WORKS_AGAIN, ['projectId', 'articleId', 'tries']), [
        { projectId, articleId: 'stuck', tries: 6 },
      ]);
      assert.deepEqual(
        linesSaying(logs.lines, APPLIED, ['articleId', 'lateMs']).map((line) => line.articleId),
        ['a', 'z', 'later', 'stuck'],
      );
      logs.lines.length = 0;
    });

    test('articles that cannot be applied, a batch of them, hide none of the schedules due after them', async () => {
      const batched = createScheduler(
        { db: t.db, now: t.clock.now },
        { lookaheadMs: 0, logger: logs.logger, batch: 2 },
      );
      for (const [id, minutes] of [
        ['stuck-1', 1],
        ['stuck-2', 2],
        ['stuck-3', 3],
        ['after', 4],
      ] as const)
        await put(id, newArticle({ slug: id, publishAt: iso(START_TIME + minutes * 60_000) }));
      await refuseUpdatesOf(t, dialect, 'stuck-1', 'stuck-2', 'stuck-3');
      t.clock.advance(HOUR);
      assert.equal(await batched.runOnce(), 1);
      assert.equal(await served('after'), 200);
      assert.deepEqual(
        linesSaying(logs.lines, FAILED, ['articleId']).map((line) => line.articleId),
        ['stuck-1', 'stuck-2', 'stuck-3'],
      );
      await batched.stop();
      await allowUpdates(t, dialect);
      logs.lines.length = 0;
    });

    test('a scheduler that is stopping logs no failure: the schedule is left to the next process', async () => {
      await put('stuck', newArticle({ slug: 'stuck', publishAt: iso(START_TIME + HOUR) }));
      await refuseUpdatesOf(t, dialect, 'stuck');
      t.clock.advance(HOUR);
      const polling = scheduler.runOnce();
      await scheduler.stop();
      assert.equal(await polling, 0);
      assert.deepEqual(linesSaying(logs.lines, FAILED, []), []);
      await allowUpdates(t, dialect);
    });

    test('a poll asked for while another runs follows it, and sees what came due since', async () => {
      await put('a', newArticle({ slug: 'late', publishAt: iso(START_TIME + HOUR) }));
      const running = scheduler.runOnce();
      t.clock.advance(HOUR);
      const asked = scheduler.runOnce();
      assert.deepEqual(await Promise.all([running, asked]), [0, 1]);
      assert.equal(await served('late'), 200);
    });

    test('a schedule on a deleted article is dropped with it', async () => {
      await put('a', newArticle({ slug: 'gone' }));
      await patch('a', { publishAt: iso(START_TIME + HOUR) });
      assert.equal((await t.admin('DELETE', one('a'))).statusCode, 204);
      t.clock.advance(HOUR);
      assert.equal(await scheduler.runOnce(), 0);
      assert.deepEqual(await eventTypes(), []);
    });

    test('bad schedules answer 400 with details and change nothing', async () => {
      await put('a', newArticle({ slug: 'bad' }));
      await patch('a', { publishAt: iso(START_TIME + 2 * HOUR) });
      const before = await get('a');
      assertInvalidBody(
        await patch('a', { unpublishAt: iso(START_TIME + HOUR) }),
        '/unpublishAt',
        'before publishAt',
      );
      assertInvalidBody(
        await patch('a', { publishAt: iso(START_TIME + 3 * HOUR), unpublishAt: iso(START_TIME) }),
        '/unpublishAt',
        'both, in the wrong order',
      );
      for (const value of ['tomorrow', '2026-13-01T00:00:00Z', '2026-11-20T10:00:00', 12345, true]) {
        assertInvalidBody(await patch('a', { publishAt: value }), '/publishAt', JSON.stringify(value));
      }
      // Written in 9999 but, by its offset, a moment in year 10000: stored, it could not be served.
      const late = await patch('a', { publishAt: '9999-12-31T23:59:59-23:59' });
      assertInvalidBody(late, '/publishAt', 'past year 9999');
      assert.match(late.json().error.message, /after the end of year 9999/);
      assertInvalidBody(
        await put('a', { ...newArticle({ slug: 'bad' }), unpublishAt: '9999-12-31T23:00:00-01:00' }),
        '/unpublishAt',
        'past year 9999, on the PUT',
      );
      const leap = await patch('a', { publishAt: '2016-12-31T23:59:60Z' });
      assertInvalidBody(leap, '/publishAt', 'a leap second');
      assert.match(leap.json().error.message, /leap second/);
      assert.equal((await t.admin('GET', `/admin/v1/projects/${projectId}/articles`)).statusCode, 200);
      assertInvalidBody(await patch('a', { publishAt: null, other: 1 }), '/other', 'unknown field');
      assertInvalidBody(
        await put('a', { ...newArticle({ slug: 'bad' }), unpublishAt: 'soon' }),
        '/unpublishAt',
        'on the PUT',
      );
      assert.deepEqual(await get('a'), before);
      assert.equal((await patch('missing', { publishAt: null })).statusCode, 404);
    });

    if (dialect === 'postgres') {
      test('several schedulers on one database apply each schedule exactly once', async () => {
        const others = [0, 1, 2].map(() =>
          createScheduler({ db: t.database.connectAgain(), now: t.clock.now }, { logger: logs.logger }),
        );
        for (let i = 0; i < 10; i++) {
          await put(`a${i}`, newArticle({ slug: `race-${i}`, publishAt: iso(START_TIME + HOUR) }));
        }
        t.clock.advance(HOUR);
        const applied = await Promise.all([scheduler, ...others].map((s) => s.runOnce()));
        assert.equal(
          applied.reduce((sum, n) => sum + n, 0),
          10,
        );
        assert.deepEqual(await eventTypes(), Array(10).fill('content.created'));
        await Promise.all(others.map((s) => s.stop()));
      });
    }
  });
}
