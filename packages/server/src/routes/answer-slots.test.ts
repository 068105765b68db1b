import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { FastifyReply } from 'fastify';
import { WHOLE_ANSWER_BYTES } from '../http/send-json.ts';
import { DIALECTS } from '../test/databases.ts';
import { captureLog, createTestApp, LEVELS, newArticle, paragraph, type TestApp } from '../test/test-app.ts';

// Three of these make a list larger than an answer sent whole.
const LARGE_BLOCKS = Array.from({ length: 200 }, (_, i) =>
  paragraph(`${i} ${'words of a long article '.repeat(90)}`),
);

/** Takes the app's only slot, as an answer being made for a slow reader would; `give` hands it back. */
async function takeTheSlot(t: TestApp): Promise<{ give(): void }> {
  const raw = Object.assign(new EventEmitter(), { closed: false });
  await t.app.answerSlots.hold({ raw } as unknown as FastifyReply);
  return {
    give() {
      raw.closed = true;
      raw.emit('close');
    },
  };
}

for (const dialect of DIALECTS) {
  describe(`answers made at once [${dialect}]`, () => {
    let t: TestApp;
    let projectId: string;
    let key: string;
    beforeEach(async () => {
      t = await createTestApp(dialect, { answerSlots: { slots: 1, patienceMs: 50 } });
      projectId = (await t.createProject()).id;
      key = await t.createKey(projectId);
      await t.putArticle(projectId, 'a', newArticle({ slug: 'a', published: true }));
    });
    afterEach(() => t.close());

    test('while every slot is taken, an answer to be made is 503 after a wait; a ready one is sent', async () => {
      await t.close();
      const { logger, lines } = captureLog('info');
      t = await createTestApp(dialect, { logger, answerSlots: { slots: 1, patienceMs: 50 } });
      projectId = (await t.createProject()).id;
      key = await t.createKey(projectId);
      await t.putArticle(projectId, 'a', newArticle({ slug: 'a', published: true }));
      const list = `/api/v1/projects/${projectId}/content`;
      assert.equal((await t.deliver(key, list)).statusCode, 200);
      const slot = await takeTheSlot(t);

      assert.equal((await t.deliver(key, list)).statusCode, 200, 'a cached answer needs no slot');
      for (const answer of [
        await t.deliver(key, `${list}/by-slug/a`),
        await t.deliver(key, `${list}?limit=5`),
        await t.admin('GET', `/admin/v1/projects/${projectId}/articles`),
      ]) {
        assert.equal(answer.statusCode, 503, answer.body);
        assert.equal(answer.json().error.code, 'unavailable');
        assert.equal(answer.headers['retry-after'], '1');
        assert.equal(answer.headers.etag, undefined);
      }

      // Each is a line at info; that requests were turned away is one warn line, with how many
      // so far (those that follow within the minute are told together at its end).
      const turnedAway = lines.filter((line) => line.status === 503);
      assert.deepEqual(
        turnedAway.map((line) => line.level),
        [LEVELS.info, LEVELS.info, LEVELS.info],
      );
      const warnings = lines.filter((line) => line.level >= LEVELS.warn);
      assert.deepEqual(
        warnings.map((line) => [line.msg, line.turnedAway]),
        [['requests turned away: as many answers were being made as this process makes at once', 1]],
      );

      slot.give();
      assert.equal(t.app.answerSlots.use().held, 0, 'a 503 gave its place back');
      assert.equal((await t.deliver(key, `${list}/by-slug/a`)).statusCode, 200);
      assert.equal((await t.admin('GET', `/admin/v1/projects/${projectId}/articles`)).statusCode, 200);
      assert.deepEqual(t.app.answerSlots.use(), { held: 0, waiting: 0 });
    });

    test('a 304 for a streamed answer needs no turn; a HEAD is answered without a body', async () => {
      await t.close();
      // No cache: each read of the list is made anew, as one too large to keep would be.
      t = await createTestApp(dialect, { responseCacheBytes: 0, answerSlots: { slots: 1, patienceMs: 50 } });
      projectId = (await t.createProject()).id;
      key = await t.createKey(projectId);
      for (const id of ['a', 'b', 'c'])
        await t.putArticle(projectId, id, newArticle({ slug: id, blocks: LARGE_BLOCKS, published: true }));
      const list = `/api/v1/projects/${projectId}/content?limit=100`;
      const first = await t.deliver(key, list);
      assert.equal(first.statusCode, 200);
      assert.ok(first.rawPayload.length > WHOLE_ANSWER_BYTES, 'streamed');
      const etag = String(first.headers.etag);

      const slot = await takeTheSlot(t);
      const unchanged = await t.deliver(key, list, { 'if-none-match': etag });
      assert.equal(unchanged.statusCode, 304, unchanged.body);
      assert.equal(unchanged.headers.etag, etag);
      slot.give();

      const head = await t.app.inject({
        method: 'HEAD',
        url: list,
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(head.statusCode, 200);
      assert.equal(head.body, '');
      assert.deepEqual(t.app.answerSlots.use(), { held: 0, waiting: 0 });
    });

    test('a request waiting for a slot is answered once one is given back', async () => {
      await t.close();
      t = await createTestApp(dialect, { answerSlots: { slots: 1, patienceMs: 60_000 } });
      projectId = (await t.createProject()).id;
      key = await t.createKey(projectId);
      await t.putArticle(projectId, 'a', newArticle({ slug: 'a', published: true }));
      const slot = await takeTheSlot(t);
      const answer = t.deliver(key, `/api/v1/projects/${projectId}/content/by-slug/a`);
      const deadline = Date.now() + 5_000;
      while (t.app.answerSlots.use().waiting === 0) {
        assert.ok(Date.now() < deadline, 'the request did not wait for a slot');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const metrics = (await t.admin('GET', '/metrics')).body;
      assert.match(metrics, /^folio_answers_in_progress 1$/m);
      assert.match(metrics, /^folio_answers_waiting 1$/m);
      slot.give();
      assert.equal((await answer).statusCode, 200);
    });
  });
}
