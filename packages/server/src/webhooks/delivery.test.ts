import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { type Delivery, WEBHOOK_EVENT_BODIES, type WebhookEventName } from '@folio/schema';
import { Value } from '@sinclair/typebox/value';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { buildApp } from '../app.ts';
import { addFormats } from '../http/validation.ts';
import { resolveAdminCredential } from '../services/admin-auth.ts';
import { rotateWebhookSecret } from '../services/webhooks.ts';
import { DIALECTS } from '../test/databases.ts';
import { type Receiver, startReceiver } from '../test/receiver.ts';
import {
  createTestApp,
  newArticle,
  TEST_RETRY_SCHEDULE,
  type TestApp,
  type TestAppOptions,
} from '../test/test-app.ts';
import { createDispatcher } from './dispatcher.ts';
import { createSecretBox } from './secret-box.ts';

interface Setup {
  t: TestApp;
  receiver: Receiver;
  projectId: string;
  hook: string;
}

async function setUp(dialect: (typeof DIALECTS)[number], options: TestAppOptions = {}): Promise<Setup> {
  // Real time: receivers refuse signatures whose timestamp is more than 5 minutes off.
  const t = await createTestApp(dialect, { clockStart: Date.now(), ...options });
  const receiver = await startReceiver();
  const projectId = (await t.createProject({ websiteUrl: 'https://www.example.com' })).id;
  const response = await t.admin('PUT', `/admin/v1/projects/${projectId}/webhook`, { url: receiver.url });
  assert.equal(response.statusCode, 200, response.body);
  return { t, receiver, projectId, hook: `/admin/v1/projects/${projectId}/webhook` };
}

async function deliveryLog(s: Setup) {
  return (await s.t.admin('GET', `${s.hook}/deliveries`)).json().data as Delivery[];
}

for (const dialect of DIALECTS) {
  describe(`webhook deliveries [${dialect}]`, () => {
    let s: Setup;
    beforeEach(async () => {
      s = await setUp(dialect);
    });
    afterEach(async () => {
      await s.t.close();
      await s.receiver.close();
    });

    test('before the secret is revealed, deliveries are unsigned; body and headers follow the contract', async () => {
      await s.t.putArticle(s.projectId, 'a1', newArticle({ slug: 'hello', published: true }));
      assert.equal(await s.t.dispatcher.runOnce(), 1);
      const [request] = await s.receiver.waitFor(1);
      assert.equal(request!.headers['content-type'], 'application/json');
      assert.match(request!.headers['user-agent']!, /^Folio-Webhooks\//);
      assert.match(String(request!.headers['webhook-id']), /^msg_/);
      assert.equal(request!.headers['webhook-timestamp'], String(Math.floor(s.t.clock.now() / 1000)));
      assert.equal(request!.headers['webhook-signature'], undefined);
      assert.deepEqual(request!.json, {
        event: 'content.created',
        projectId: s.projectId,
        timestamp: new Date(s.t.clock.now()).toISOString(),
        data: { id: 'a1', slug: 'hello' },
      });
      const [delivery] = await deliveryLog(s);
      assert.equal(delivery!.status, 'succeeded');
      assert.equal(delivery!.attempts, 1);
      assert.equal(delivery!.lastStatusCode, 204);
      assert.equal(delivery!.webhookId, request!.headers['webhook-id']);
    });

    test('after the reveal every delivery verifies with standardwebhooks; the secret stays the same', async () => {
      const reveal = await s.t.admin('POST', `${s.hook}/reveal-secret`);
      assert.equal(reveal.statusCode, 200);
      const secret = reveal.json().data.secret as string;
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.equal(Buffer.from(secret.slice(6), 'base64').length, 32);
      assert.equal((await s.t.admin('POST', `${s.hook}/reveal-secret`)).json().data.secret, secret);
      assert.deepEqual((await s.t.admin('GET', s.hook)).json().data, {
        url: s.receiver.url,
        signed: true,
        enabled: true,
        disabledReason: null,
        secretRotatedAt: null,
      });

      s.receiver.secrets = [secret, `whsec_${randomBytes(32).toString('base64')}`];
      await s.t.putArticle(s.projectId, 'a1', newArticle({ slug: 'one', published: true }));
      await s.t.dispatcher.runOnce();
      const [request] = await s.receiver.waitFor(1);
      assert.match(String(request!.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/);
      assert.deepEqual(request!.verified, [true, false], 'the right secret verifies, another does not');
    });

    test('each kind of change sends its event; no-ops and unpublished changes send nothing', async () => {
      const article = newArticle({ slug: 'first', published: true });
      await s.t.putArticle(s.projectId, 'a1', article);
      await s.t.putArticle(s.projectId, 'a1', article); // no-op
      await s.t.putArticle(s.projectId, 'a1', { ...article, slug: 'renamed' });
      await s.t.admin('POST', `/admin/v1/projects/${s.projectId}/articles/a1/publish`); // no-op
      await s.t.admin('POST', `/admin/v1/projects/${s.projectId}/articles/a1/unpublish`);
      await s.t.putArticle(s.projectId, 'a1', {
        ...article,
        slug: 'renamed',
        title: 'Changed while unpublished',
        published: false,
      });
      await s.t.admin('POST', `/admin/v1/projects/${s.projectId}/articles/a1/publish`);
      await s.t.admin('DELETE', `/admin/v1/projects/${s.projectId}/articles/a1`);
      await s.t.putArticle(s.projectId, 'draft', newArticle());
      await s.t.admin('DELETE', `/admin/v1/projects/${s.projectId}/articles/draft`);
      const test = await s.t.admin('POST', `${s.hook}/test`);
      assert.equal(test.statusCode, 202);
      assert.match(test.json().data.webhookId, /^msg_/);

      while ((await s.t.dispatcher.runOnce()) > 0) {}
      const received = await s.receiver.waitFor(6);
      // Each body is what the schema documents for its event (the OpenAPI's `webhooks`), no more.
      const ajv = addFormats(new Ajv2020({ strict: false }));
      for (const { json } of received) {
        const schema = WEBHOOK_EVENT_BODIES[json.event as WebhookEventName];
        assert.ok(ajv.validate(schema, json), `${JSON.stringify(json)}: ${ajv.errorsText()}`);
        assert.deepEqual(Value.Clean(schema, structuredClone(json)), json, JSON.stringify(json));
      }
      const events = received.map((r) => [r.json.event, r.json.data]);
      assert.deepEqual(
        events.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
        [
          ['content.created', { id: 'a1', slug: 'first' }],
          ['content.created', { id: 'a1', slug: 'renamed' }],
          ['content.deleted', { id: 'a1', slug: 'renamed' }],
          ['content.unpublished', { id: 'a1', slug: 'renamed' }],
          ['content.updated', { id: 'a1', slug: 'renamed', previousSlug: 'first' }],
          ['webhook.test', {}],
        ],
      );
      assert.equal(s.receiver.received.length, 6);
    });

    test('failures retry on the schedule with the same webhook-id, then fail; a manual retry sends at once', async () => {
      s.receiver.fallback = { status: 500, body: 'boom' };
      await s.t.putArticle(s.projectId, 'a1', newArticle({ published: true }));
      const created = s.t.clock.now();
      await s.t.dispatcher.runOnce();
      let [delivery] = await deliveryLog(s);
      assert.equal(delivery!.status, 'pending');
      assert.equal(delivery!.lastStatusCode, 500);
      assert.equal(delivery!.lastError, 'HTTP 500');
      assert.equal(delivery!.nextAttemptAt, new Date(created + TEST_RETRY_SCHEDULE[0]!).toISOString());
      assert.equal(await s.t.dispatcher.runOnce(), 0, 'not due yet');

      for (const delay of TEST_RETRY_SCHEDULE) {
        s.t.clock.advance(delay);
        assert.equal(await s.t.dispatcher.runOnce(), 1);
      }
      [delivery] = await deliveryLog(s);
      assert.equal(delivery!.status, 'failed');
      assert.equal(delivery!.attempts, 1 + TEST_RETRY_SCHEDULE.length);
      assert.equal(delivery!.nextAttemptAt, null);
      assert.deepEqual(
        delivery!.log.map((entry) => [entry.attempt, entry.statusCode, entry.responseBody]),
        [1, 2, 3, 4].map((n) => [n, 500, 'boom']),
      );
      const ids = new Set(s.receiver.received.map((r) => r.headers['webhook-id']));
      assert.equal(ids.size, 1, 'the same webhook-id on every retry');

      s.receiver.fallback = { status: 200 };
      const retry = await s.t.admin('POST', `${s.hook}/deliveries/${delivery!.id}/retry`);
      assert.equal(retry.statusCode, 202);
      assert.equal(await s.t.dispatcher.runOnce(), 1);
      [delivery] = await deliveryLog(s);
      assert.equal(delivery!.status, 'succeeded');
      assert.equal(delivery!.attempts, 5, 'attempts keep counting');
      assert.equal((await s.t.admin('POST', `${s.hook}/deliveries/dlv_nope/retry`)).statusCode, 404);
    });

    test('a manual retry during an attempt: the attempt is recorded, then the delivery is sent again', async () => {
      s.receiver.replies = [{ status: 500, body: 'slow', delayMs: 300 }];
      s.receiver.fallback = { status: 200 };
      await s.t.putArticle(s.projectId, 'a1', newArticle({ published: true }));
      const first = s.t.dispatcher.runOnce();
      await s.receiver.waitFor(1);
      const [inFlight] = await deliveryLog(s);
      const retry = await s.t.admin('POST', `${s.hook}/deliveries/${inFlight!.id}/retry`);
      assert.equal(retry.statusCode, 202);
      assert.equal(await first, 1);
      // The clock has not moved: on the schedule alone nothing would be due yet.
      assert.equal(await s.t.dispatcher.runOnce(), 1, 'sent again at once');
      const [delivery] = await deliveryLog(s);
      assert.equal(delivery!.status, 'succeeded');
      assert.equal(delivery!.attempts, 2);
      assert.deepEqual(
        delivery!.log.map((entry) => [entry.attempt, entry.statusCode]),
        [
          [1, 500],
          [2, 200],
        ],
      );
      assert.equal(s.receiver.received.length, 2, 'every send is in the log');
      assert.equal(await s.t.dispatcher.runOnce(), 0, 'and asked for once');
    });

    test('410 Gone disables the webhook until the URL is set again', async () => {
      s.receiver.fallback = { status: 410 };
      await s.t.putArticle(s.projectId, 'a1', newArticle({ published: true }));
      await s.t.dispatcher.runOnce();
      const [delivery] = await deliveryLog(s);
      assert.equal(delivery!.status, 'failed');
      const webhook = (await s.t.admin('GET', s.hook)).json().data;
      assert.equal(webhook.enabled, false);
      assert.match(webhook.disabledReason, /410/);
      assert.equal((await s.t.admin('POST', `${s.hook}/test`)).statusCode, 409);
      // A retry would fail the same way: refused as the test action is, and left as it was.
      const retry = await s.t.admin('POST', `${s.hook}/deliveries/${delivery!.id}/retry`);
      assert.equal(retry.statusCode, 409);
      assert.match(retry.json().error.message, /disabled/);
      assert.equal((await deliveryLog(s))[0]!.status, 'failed');

      await s.t.putArticle(s.projectId, 'a2', newArticle({ published: true }));
      assert.equal((await deliveryLog(s)).length, 1, 'no delivery while disabled');

      await s.t.admin('PUT', s.hook, { url: s.receiver.url });
      assert.equal((await s.t.admin('GET', s.hook)).json().data.enabled, true);
      s.receiver.fallback = { status: 204 };
      await s.t.putArticle(s.projectId, 'a3', newArticle({ published: true }));
      assert.equal(await s.t.dispatcher.runOnce(), 1);

      await s.t.admin('PUT', s.hook, { url: null });
      const orphan = await s.t.admin('POST', `${s.hook}/deliveries/${delivery!.id}/retry`);
      assert.equal(orphan.statusCode, 409);
      assert.match(orphan.json().error.message, /no webhook URL/);
    });

    test('429 and 503 with Retry-After are honoured within the schedule bounds', async () => {
      s.receiver.replies = [
        { status: 429, headers: { 'retry-after': '30' } },
        { status: 503, headers: { 'retry-after': '86400' } },
      ];
      await s.t.putArticle(s.projectId, 'a1', newArticle({ published: true }));
      const start = s.t.clock.now();
      await s.t.dispatcher.runOnce();
      assert.equal((await deliveryLog(s))[0]!.nextAttemptAt, new Date(start + 30_000).toISOString());
      s.t.clock.advance(30_000);
      await s.t.dispatcher.runOnce();
      const highest = Math.max(...TEST_RETRY_SCHEDULE);
      assert.equal(
        (await deliveryLog(s))[0]!.nextAttemptAt,
        new Date(start + 30_000 + highest).toISOString(),
      );
    });

    test('redirects are not followed and a large answer is cut to 4 KB', async () => {
      s.receiver.replies = [
        { status: 302, headers: { location: `${s.receiver.url}/elsewhere` } },
        { status: 200, body: 'x'.repeat(100_000) },
      ];
      await s.t.putArticle(s.projectId, 'a1', newArticle({ published: true }));
      await s.t.dispatcher.runOnce();
      assert.equal(s.receiver.received.length, 1, 'the Location was not requested');
      const [first] = await deliveryLog(s);
      assert.equal(first!.status, 'pending');
      assert.equal(first!.lastStatusCode, 302);
      s.t.clock.advance(TEST_RETRY_SCHEDULE[0]!);
      await s.t.dispatcher.runOnce();
      const [second] = await deliveryLog(s);
      assert.equal(second!.status, 'succeeded');
      assert.equal(second!.log[1]!.responseBody?.length, 4096);
    });

    test('an answer holding NUL bytes is logged, and the delivery settles once', async () => {
      s.receiver.replies = [{ status: 200, body: 'ok\u0000then more\u0000' }];
      await s.t.putArticle(s.projectId, 'a1', newArticle({ published: true }));
      await s.t.dispatcher.runOnce();
      const [delivery] = await deliveryLog(s);
      assert.equal(delivery!.status, 'succeeded');
      assert.equal(delivery!.log[0]!.responseBody, 'ok\ufffdthen more\ufffd');
      s.t.clock.advance(Math.max(...TEST_RETRY_SCHEDULE) * 2);
      await s.t.dispatcher.runOnce();
      assert.equal(s.receiver.received.length, 1, 'not sent again');
    });

    test('a secret rotation signs with both secrets for 24 hours, then with the new one only', async () => {
      const old = (await s.t.admin('POST', `${s.hook}/reveal-secret`)).json().data.secret;
      const rotated = await s.t.admin('POST', `${s.hook}/rotate-secret`);
      assert.equal(rotated.statusCode, 200);
      const fresh = rotated.json().data.secret;
      assert.notEqual(fresh, old);
      assert.equal((await s.t.admin('POST', `${s.hook}/reveal-secret`)).json().data.secret, fresh);
      assert.notEqual((await s.t.admin('GET', s.hook)).json().data.secretRotatedAt, null);

      s.receiver.secrets = [old, fresh];
      await s.t.putArticle(s.projectId, 'a1', newArticle({ published: true }));
      await s.t.dispatcher.runOnce();
      const [during] = await s.receiver.waitFor(1);
      assert.equal(String(during!.headers['webhook-signature']).split(' ').length, 2);
      assert.deepEqual(during!.verified, [true, true], 'receivers on either secret verify');
    });
  });

  describe(`webhook settings and guard [${dialect}]`, () => {
    test('the timeout ends a slow attempt and it is retried', async () => {
      const s = await setUp(dialect, { dispatcher: { timeoutMs: 200 } });
      try {
        s.receiver.replies = [{ status: 200, delayMs: 2_000 }];
        await s.t.putArticle(s.projectId, 'a1', newArticle({ published: true }));
        await s.t.dispatcher.runOnce();
        const [delivery] = await deliveryLog(s);
        assert.equal(delivery!.status, 'pending');
        assert.match(String(delivery!.lastError), /timed out after 200 ms/);
        assert.ok(delivery!.log[0]!.durationMs < 1_500);
      } finally {
        await s.t.close();
        await s.receiver.close();
      }
    });

    test('with FOLIO_SECRET_KEY the secret is stored encrypted', async () => {
      const secretBox = createSecretBox(randomBytes(32));
      const s = await setUp(dialect, { webhooks: { secretBox }, dispatcher: { secretBox } });
      try {
        const secret = (await s.t.admin('POST', `${s.hook}/reveal-secret`)).json().data.secret;
        const row = await s.t.db.selectFrom('webhooks').selectAll().executeTakeFirstOrThrow();
        assert.ok(row.secret!.startsWith('sealed:v1:'));
        assert.ok(!JSON.stringify(row).includes(secret.slice(6)), 'no plain secret at rest');
        s.receiver.secrets = [secret];
        await s.t.putArticle(s.projectId, 'a1', newArticle({ published: true }));
        await s.t.dispatcher.runOnce();
        assert.deepEqual((await s.receiver.waitFor(1))[0]!.verified, [true]);

        // A process without the key (a CLI run without FOLIO_SECRET_KEY), or with another one,
        // cannot rotate: it would store the new secret in plain text beside the sealed one.
        for (const [key, message] of [
          [undefined, /FOLIO_SECRET_KEY is not set/],
          [randomBytes(32), /FOLIO_SECRET_KEY is not the key it was stored with/],
        ] as const) {
          const deps = {
            db: s.t.db,
            now: Date.now,
            webhooks: { allowPrivate: true, secretBox: createSecretBox(key) },
          };
          await assert.rejects(rotateWebhookSecret(deps, s.projectId), message);
        }
        const after = await s.t.db.selectFrom('webhooks').selectAll().executeTakeFirstOrThrow();
        assert.equal(after.secret, row.secret, 'the sealed secret is left as it was');

        // A server without the key, or with another one, sends nothing and spends no attempt:
        // it gives the delivery back at once, and leaves the project to processes that can sign.
        s.t.clock.advance(1_000); // the newest delivery in the log
        await s.t.putArticle(s.projectId, 'a2', newArticle({ slug: 'second', published: true }));
        for (const key of [undefined, randomBytes(32)]) {
          const keyless = createDispatcher({
            db: s.t.db,
            lockRows: dialect === 'postgres',
            now: s.t.clock.now,
            retryScheduleMs: [1_000],
            timeoutMs: 2_000,
            allowPrivate: true,
            secretBox: createSecretBox(key),
            userAgent: 'Folio-Webhooks/test',
          });
          assert.equal(await keyless.runOnce(), 1, 'claimed');
          assert.equal(await keyless.runOnce(), 0, 'then left to others, though due and free');
          await keyless.stop(1_000);
        }
        const [pending] = await deliveryLog(s);
        assert.deepEqual([pending!.status, pending!.attempts], ['pending', 0]);
        assert.equal(s.receiver.received.length, 1, 'only the first article was sent');
        // No lease to wait out: the process with the key sends it on its next claim.
        await s.t.dispatcher.runOnce();
        assert.deepEqual((await s.receiver.waitFor(2))[1]!.verified, [true]);
        assert.equal((await deliveryLog(s))[0]!.status, 'succeeded');
      } finally {
        await s.t.close();
        await s.receiver.close();
      }
    });

    test('webhook settings: GET without a URL, removal, 409 test without a URL, bad URLs refused', async () => {
      const t = await createTestApp(dialect, { webhooks: { allowPrivate: false } });
      try {
        const projectId = (await t.createProject()).id;
        const hook = `/admin/v1/projects/${projectId}/webhook`;
        assert.deepEqual((await t.admin('GET', hook)).json().data.url, null);
        assert.equal((await t.admin('POST', `${hook}/test`)).statusCode, 409);
        for (const url of [
          'http://127.0.0.1:8080/hook',
          'http://localhost/hook',
          'http://[::1]/hook',
          'http://2130706433/',
          'http://0x7f.1/',
          'http://169.254.169.254/latest/meta-data/',
          'http://[::ffff:127.0.0.1]/',
          'http://[::127.0.0.1]/',
          'http://[::ffff:0:127.0.0.1]/',
          'http://[64:ff9b::a9fe:a9fe]/latest/meta-data/',
          'http://[64:ff9b:1::a00:1]/',
          'http://[2002:c0a8:0101::1]/',
          'http://10.0.0.1/',
          'http://192.168.1.10/',
          'ftp://example.com/',
          'file:///etc/passwd',
          'not a url',
          'https://user:pass@example.com/',
        ]) {
          const response = await t.admin('PUT', hook, { url });
          assert.equal(response.statusCode, 400, url);
          assert.equal(response.json().error.code, 'invalid_body');
          assert.equal(response.json().error.details[0].path, '/url');
        }
        const loopback = await t.admin('PUT', hook, { url: 'http://127.0.0.1/' });
        assert.match(loopback.json().error.message, /loopback.*FOLIO_WEBHOOK_ALLOW_PRIVATE/);
        assert.equal((await t.admin('PUT', hook, { url: 'https://93.184.216.34/hook' })).statusCode, 200);
        assert.equal((await t.admin('PUT', hook, { url: 'http://[64:ff9b::808:808]/hook' })).statusCode, 200);
        assert.equal((await t.admin('PUT', hook, { url: null })).json().data.url, null);
      } finally {
        await t.close();
      }
    });

    test('the guard runs again at send time: a host that now resolves to loopback is not contacted', async () => {
      const receiver = await startReceiver();
      let answer = '93.184.216.34';
      const resolve = async () => [{ address: answer, family: 4 }];
      const t = await createTestApp(dialect, {
        clockStart: Date.now(),
        webhooks: { allowPrivate: false, resolve },
        dispatcher: { allowPrivate: false, resolve },
      });
      try {
        const projectId = (await t.createProject()).id;
        const port = new URL(receiver.url).port;
        const set = await t.admin('PUT', `/admin/v1/projects/${projectId}/webhook`, {
          url: `http://rebinding.example:${port}/hook`,
        });
        assert.equal(set.statusCode, 200, set.body);
        answer = '127.0.0.1';
        await t.putArticle(projectId, 'a1', newArticle({ published: true }));
        await t.dispatcher.runOnce();
        const [delivery] = (await t.admin('GET', `/admin/v1/projects/${projectId}/webhook/deliveries`)).json()
          .data;
        assert.match(delivery.lastError, /127\.0\.0\.1.*loopback/);
        assert.equal(receiver.received.length, 0);
      } finally {
        await t.close();
        await receiver.close();
      }
    });
  });
}

describe('webhook send-time DNS', () => {
  test('a lookup that hangs ends within the attempt timeout and is retried', async () => {
    const hang = () => new Promise<never>(() => {});
    const t = await createTestApp('sqlite', {
      clockStart: Date.now(),
      webhooks: { allowPrivate: false, resolve: async () => [{ address: '93.184.216.34', family: 4 }] },
      dispatcher: { allowPrivate: false, resolve: hang, timeoutMs: 200 },
    });
    try {
      const projectId = (await t.createProject()).id;
      await t.admin('PUT', `/admin/v1/projects/${projectId}/webhook`, {
        url: 'https://slow-dns.example/hook',
      });
      await t.putArticle(projectId, 'a1', newArticle({ published: true }));
      const started = Date.now();
      await t.dispatcher.runOnce();
      assert.ok(Date.now() - started < 2_000, 'the attempt ended');
      const [delivery] = (await t.admin('GET', `/admin/v1/projects/${projectId}/webhook/deliveries`)).json()
        .data;
      assert.equal(delivery.status, 'pending');
      assert.match(delivery.lastError, /resolving the webhook host timed out after 200 ms/);
    } finally {
      await t.close();
    }
  });
});

for (const dialect of DIALECTS) {
  describe(`no stale read after a webhook [${dialect}]`, () => {
    test('when a delivery arrives, another server instance on the database already serves the change', async () => {
      const s = await setUp(dialect);
      // A second instance with its own connection, as another process behind a load balancer.
      const other = await buildApp({
        db: s.t.database.connectAgain(),
        baseUrl: 'http://other.test',
        adminCredential: await resolveAdminCredential(
          { db: s.t.db, now: Date.now },
          'unused-admin-token-000',
        ),
      });
      try {
        const key = await s.t.createKey(s.projectId);
        const seen: Array<[string, number, string | undefined]> = [];
        s.receiver.onReceive = async (request) => {
          const slug = String(request.json.data.slug);
          const response = await other.inject({
            url: `/api/v1/projects/${s.projectId}/content/by-slug/${slug}`,
            headers: { authorization: `Bearer ${key}` },
          });
          seen.push([request.json.event, response.statusCode, response.json().data?.title]);
        };
        await s.t.putArticle(s.projectId, 'a1', newArticle({ slug: 'a', title: 'First', published: true }));
        await s.t.dispatcher.runOnce();
        await s.t.putArticle(s.projectId, 'a1', newArticle({ slug: 'a', title: 'Second', published: true }));
        await s.t.dispatcher.runOnce();
        await s.t.admin('POST', `/admin/v1/projects/${s.projectId}/articles/a1/unpublish`);
        await s.t.dispatcher.runOnce();
        assert.deepEqual(seen, [
          ['content.created', 200, 'First'],
          ['content.updated', 200, 'Second'],
          ['content.unpublished', 404, undefined],
        ]);
      } finally {
        await other.close();
        await s.t.close();
        await s.receiver.close();
      }
    });
  });
}
