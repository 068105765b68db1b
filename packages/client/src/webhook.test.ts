import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, type WebhookEvent, WebhookVerificationError } from './webhook.ts';
import { createMemoryIdStore } from './webhook-ids.ts';
import { createWebhookReceiver } from './webhook-receiver.ts';

const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
const SECRET = newSecret();
const EVENT: WebhookEvent = {
  event: 'content.updated',
  projectId: 'proj_1',
  timestamp: '2026-11-22T10:00:00.000Z',
  data: { id: 'a1', slug: 'hello', previousSlug: 'hi' },
};

/** Signs `body` as Folio does, with the official library. */
function sign(body: string, { secret = SECRET, id = 'msg_1', at = new Date() } = {}) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  };
}

function rejection(fn: () => unknown): WebhookVerificationError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof WebhookVerificationError, `expected a WebhookVerificationError, got ${error}`);
    return error;
  }
  assert.fail('expected verification to fail');
}

describe('verifyWebhook', () => {
  const body = JSON.stringify(EVENT);

  it('returns the event of a correctly signed body, given as text, bytes or Headers', () => {
    const headers = sign(body);
    assert.deepEqual(verifyWebhook(body, headers, SECRET), EVENT);
    assert.deepEqual(verifyWebhook(new TextEncoder().encode(body), new Headers(headers), SECRET), EVENT);
    assert.deepEqual(verifyWebhook(new TextEncoder().encode(body).buffer, headers, SECRET), EVENT);
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    assert.deepEqual(verifyWebhook(body, upper, SECRET), EVENT);
  });

  it('verifies the exact bytes, a byte-order mark included', () => {
    const withBom = `\ufeff${body}`;
    assert.equal(
      rejection(() => verifyWebhook(new TextEncoder().encode(withBom), sign(body), SECRET)).reason,
      'invalid_signature',
    );
  });

  it('refuses a tampered body', () => {
    const tampered = body.replace('hello', 'hullo');
    assert.equal(rejection(() => verifyWebhook(tampered, sign(body), SECRET)).reason, 'invalid_signature');
  });

  it('refuses a signature made with another secret', () => {
    const headers = sign(body, { secret: newSecret() });
    assert.equal(rejection(() => verifyWebhook(body, headers, SECRET)).reason, 'invalid_signature');
  });

  it('refuses a signature for another id or timestamp', () => {
    const headers = sign(body);
    assert.equal(
      rejection(() => verifyWebhook(body, { ...headers, 'webhook-id': 'msg_2' }, SECRET)).reason,
      'invalid_signature',
    );
    const later = String(Number(headers['webhook-timestamp']) + 1);
    assert.equal(
      rejection(() => verifyWebhook(body, { ...headers, 'webhook-timestamp': later }, SECRET)).reason,
      'invalid_signature',
    );
  });

  it('refuses missing signature headers, as on an unsigned delivery', () => {
    const headers = sign(body);
    for (const name of Object.keys(headers)) {
      const { [name as keyof typeof headers]: _, ...rest } = headers;
      assert.equal(rejection(() => verifyWebhook(body, rest, SECRET)).reason, 'missing_headers');
    }
    assert.equal(
      rejection(() => verifyWebhook(body, { ...headers, 'webhook-signature': '' }, SECRET)).reason,
      'missing_headers',
    );
  });

  it('refuses a timestamp more than five minutes old or ahead', () => {
    const old = sign(body, { at: new Date(Date.now() - 6 * 60_000) });
    assert.equal(rejection(() => verifyWebhook(body, old, SECRET)).reason, 'stale_timestamp');
    const ahead = sign(body, { at: new Date(Date.now() + 6 * 60_000) });
    assert.equal(rejection(() => verifyWebhook(body, ahead, SECRET)).reason, 'stale_timestamp');
    const recent = sign(body, { at: new Date(Date.now() - 4 * 60_000) });
    assert.deepEqual(verifyWebhook(body, recent, SECRET), EVENT);
  });

  it('accepts a signed body with only event and projectId, inventing nothing', () => {
    const minimal = '{"event":"content.updated","projectId":"p"}';
    assert.deepEqual(verifyWebhook(minimal, sign(minimal), SECRET), {
      event: 'content.updated',
      projectId: 'p',
    });
  });

  it('leaves out a timestamp that is not a string and data that is not an object', () => {
    const odd = '{"event":"content.updated","projectId":"p","timestamp":1767225600,"data":["a1"]}';
    assert.deepEqual(verifyWebhook(odd, sign(odd), SECRET), { event: 'content.updated', projectId: 'p' });
  });

  it('refuses a correctly signed body that is not a Folio event', () => {
    for (const payload of [
      'not json',
      '[]',
      '"content.created"',
      '{"event":"content.created"}',
      '{"projectId":"p","timestamp":"t","data":{}}',
      '{"event":1,"projectId":"p","timestamp":"t","data":{}}',
      '{"event":"content.created","projectId":7}',
    ]) {
      assert.equal(rejection(() => verifyWebhook(payload, sign(payload), SECRET)).reason, 'invalid_payload');
    }
  });

  it("reads any Headers implementation, not only this runtime's global one", () => {
    const headers = sign(body);
    // As undici's or node-fetch's Headers: get/has, case-insensitive, but another class.
    const lower = new Map(Object.entries(headers));
    const foreign = {
      get: (name: string) => lower.get(name.toLowerCase()) ?? null,
      has: (name: string) => lower.has(name.toLowerCase()),
    };
    assert.deepEqual(verifyWebhook(body, foreign as unknown as Headers, SECRET), EVENT);
  });

  it('says to pass the raw body when given a parsed one, or when the signature does not match', () => {
    assert.throws(
      () => verifyWebhook(JSON.parse(body) as unknown as string, sign(body), SECRET),
      (error: unknown) => error instanceof TypeError && /raw body as received/.test(error.message),
    );
    const reserialized = JSON.stringify(JSON.parse(body), null, 2);
    assert.match(rejection(() => verifyWebhook(reserialized, sign(body), SECRET)).message, /raw body/);
  });

  it('treats a malformed secret as misuse, not as a failed check', () => {
    assert.throws(() => verifyWebhook(body, sign(body), ''), TypeError);
    assert.throws(() => verifyWebhook(body, sign(body), 'whsec_not*base64!'), TypeError);
  });
});

describe('createWebhookReceiver', () => {
  const body = JSON.stringify(EVENT);

  it('calls onEvent once per webhook-id and reports duplicates', async () => {
    const seen: [WebhookEvent, string][] = [];
    const receive = createWebhookReceiver({
      secret: SECRET,
      onEvent: (event, id) => void seen.push([event, id]),
    });
    const headers = sign(body, { id: 'msg_dup' });
    assert.equal((await receive(body, headers)).result, 'handled');
    const again = await receive(body, sign(body, { id: 'msg_dup' }));
    assert.equal(again.status, 204);
    assert.equal(again.result, 'duplicate');
    assert.deepEqual(seen, [[EVENT, 'msg_dup']]);
  });

  it('ignores webhook.test without calling onEvent', async () => {
    let calls = 0;
    const receive = createWebhookReceiver({ secret: SECRET, onEvent: () => void calls++ });
    const test = JSON.stringify({
      event: 'webhook.test',
      projectId: 'p',
      timestamp: EVENT.timestamp,
      data: {},
    });
    const outcome = await receive(test, sign(test, { id: 'msg_test' }));
    assert.equal(outcome.status, 204);
    assert.equal(outcome.result, 'test');
    assert.equal(calls, 0);
  });

  it('handles a signed body with only event and projectId (seed: the whole body)', async () => {
    const seen: WebhookEvent[] = [];
    const receive = createWebhookReceiver({ secret: SECRET, onEvent: (event) => void seen.push(event) });
    const minimal = '{"event":"content.updated","projectId":"p"}';
    const outcome = await receive(minimal, sign(minimal, { id: 'msg_minimal' }));
    assert.equal(outcome.status, 204);
    assert.equal(outcome.result, 'handled');
    assert.deepEqual(seen, [{ event: 'content.updated', projectId: 'p' }]);
    assert.equal((await receive(minimal, sign(minimal, { secret: newSecret() }))).status, 401);
    assert.equal((await receive(minimal, {})).status, 401);
  });

  it('ignores a webhook.test body without timestamp or data', async () => {
    const receive = createWebhookReceiver({ secret: SECRET, onEvent: () => assert.fail('not called') });
    const test = '{"event":"webhook.test","projectId":"p"}';
    const outcome = await receive(test, sign(test, { id: 'msg_test_minimal' }));
    assert.deepEqual([outcome.status, outcome.result], [204, 'test']);
  });

  it('answers 401 for a bad signature and 400 for a signed non-event', async () => {
    const receive = createWebhookReceiver({ secret: SECRET, onEvent: () => assert.fail('not called') });
    assert.equal((await receive(body, sign(body, { secret: newSecret() }))).status, 401);
    assert.equal((await receive(body, {})).status, 401);
    assert.equal((await receive('{}', sign('{}'))).status, 400);
  });

  it('answers 500 when onEvent throws and handles the retry of that id', async () => {
    const errors: unknown[] = [];
    let attempts = 0;
    const receive = createWebhookReceiver({
      secret: SECRET,
      onEvent: () => {
        attempts++;
        if (attempts === 1) throw new Error('cache unavailable');
      },
      onError: (error) => errors.push(error),
    });
    assert.equal((await receive(body, sign(body, { id: 'msg_retry' }))).status, 500);
    assert.equal((await receive(body, sign(body, { id: 'msg_retry' }))).status, 204);
    assert.equal(attempts, 2);
    assert.equal(errors.length, 1);
  });

  it('answers 409 to a redelivery that arrives while the first is still being handled', async () => {
    const releases: (() => void)[] = [];
    const receive = createWebhookReceiver({
      secret: SECRET,
      onEvent: () => new Promise<void>((resolve) => releases.push(resolve)),
    });
    const first = receive(body, sign(body, { id: 'msg_race' }));
    const second = receive(body, sign(body, { id: 'msg_race' }));
    // Let both run up to onEvent, then finish whatever started.
    await new Promise((resolve) => setImmediate(resolve));
    for (const release of releases) release();
    const outcomes = [await first, await second].map((o) => [o.status, o.result]);
    assert.deepEqual(outcomes, [
      [204, 'handled'],
      [409, 'in_progress'],
    ]);
    assert.equal(releases.length, 1);
    // Once the first is done, the next redelivery is a plain duplicate.
    assert.equal((await receive(body, sign(body, { id: 'msg_race' }))).result, 'duplicate');
  });

  it('handles the redelivery of an event whose first delivery failed while the second waited', async () => {
    let fail: (error: Error) => void = () => {};
    let calls = 0;
    const receive = createWebhookReceiver({
      secret: SECRET,
      onEvent: () => {
        calls++;
        if (calls === 1) return new Promise<void>((_, reject) => (fail = reject));
      },
      onError: () => {},
    });
    const first = receive(body, sign(body, { id: 'msg_slow' }));
    await new Promise((resolve) => setImmediate(resolve));
    // Folio timed the first attempt out and sent the retry while the handler still ran.
    const second = await receive(body, sign(body, { id: 'msg_slow' }));
    fail(new Error('cache unavailable'));
    assert.deepEqual([second.status, (await first).status], [409, 500]);
    // Neither answer was a 2xx, so Folio sends it again: this time it is handled.
    assert.equal((await receive(body, sign(body, { id: 'msg_slow' }))).result, 'handled');
    assert.equal(calls, 2);
  });

  it('accepts a plain Set as the id store', async () => {
    const seenIds = new Set<string>(['msg_known']);
    let calls = 0;
    const receive = createWebhookReceiver({ secret: SECRET, seenIds, onEvent: () => void calls++ });
    assert.equal((await receive(body, sign(body, { id: 'msg_known' }))).result, 'duplicate');
    assert.equal((await receive(body, sign(body, { id: 'msg_new' }))).result, 'handled');
    assert.equal(calls, 1);
    assert.ok(seenIds.has('msg_new'));
  });

  it('refuses a malformed secret at creation', () => {
    assert.throws(() => createWebhookReceiver({ secret: '', onEvent: () => {} }), TypeError);
  });
});

describe('createMemoryIdStore', () => {
  it('forgets the oldest ids beyond its limit', () => {
    const store = createMemoryIdStore(2);
    store.add('a');
    store.add('b');
    store.add('c');
    assert.deepEqual(
      ['a', 'b', 'c'].map((id) => store.has(id)),
      [false, true, true],
    );
  });
});
