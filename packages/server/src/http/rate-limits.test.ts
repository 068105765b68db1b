import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { after, describe, mock, test } from 'node:test';
import { REDIS_URL, redisAvailable } from '../test/redis.ts';
import { createRateLimits, type RateLimits } from './rate-limits.ts';

const opened: RateLimits[] = [];
after(async () => {
  for (const limits of opened.splice(0)) await limits.close();
});

async function limits(options: Parameters<typeof createRateLimits>[0]): Promise<RateLimits> {
  const created = await createRateLimits(options);
  opened.push(created);
  return created;
}

/** Lets the failure counts settle: a failure is counted after the answer that reported it. */
async function counted(limits: RateLimits, address: string): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 20));
  return limits.blockedFor(address);
}

const STORES = ['memory', ...(redisAvailable ? ['redis'] : [])] as const;

for (const store of STORES) {
  describe(`rate limits (${store})`, () => {
    const redisUrl = store === 'redis' ? REDIS_URL : undefined;
    // Keys of their own in a shared Redis.
    const name = (what: string) => `${what}-${randomBytes(4).toString('hex')}`;

    test('a credential spends its budget, then is refused until the window resets; headers say so', async () => {
      const rate = await limits({
        perCredential: { points: 3, seconds: 10 },
        authFailures: { points: 30, seconds: 60 },
        redisUrl,
      });
      const key = name('key');
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await rate.spend(key)!);
      assert.deepEqual(
        answers.map((a) => a.allowed),
        [true, true, true, false],
      );
      assert.equal(answers[0]!.policy, '"default";q=3;w=10');
      assert.match(answers[0]!.state, /^"default";r=2;t=(10|9)$/);
      assert.match(answers[2]!.state, /^"default";r=0;t=\d+$/);
      assert.ok(answers[3]!.resetSeconds >= 1 && answers[3]!.resetSeconds <= 10);
      // Another credential has its own budget.
      assert.equal((await rate.spend(name('other'))!).allowed, true);
    });

    // Redis answers over the network; this process's own count needs no turn of the loop.
    if (store === 'memory')
      test('counted in this process, a spend is answered at once, without a promise', async () => {
        const rate = await limits({
          perCredential: { points: 1, seconds: 10 },
          authFailures: { points: 30, seconds: 60 },
        });
        const first = rate.spend('k');
        assert.ok(first && !(first instanceof Promise), 'a cached answer waits for no turn of the loop');
        assert.equal(first.allowed, true);
        assert.equal((rate.spend('k') as { allowed: boolean }).allowed, false);
      });

    test('without a per-credential budget nothing is counted', async () => {
      const rate = await limits({
        perCredential: undefined,
        authFailures: { points: 30, seconds: 60 },
        redisUrl,
      });
      assert.equal(rate.spend('k'), undefined);
    });

    test('an address past its failed authentications is blocked for the rest of the window', async () => {
      const rate = await limits({
        perCredential: undefined,
        authFailures: { points: 3, seconds: 60 },
        redisUrl,
      });
      const address = name('203.0.113.7');
      // In memory nothing is blocked yet, so callers may skip the address; Redis may hold a count.
      assert.equal(rate.blocking, store === 'redis');
      rate.failed(address);
      rate.failed(address);
      assert.equal(await counted(rate, address), 0, 'two of three failures: still allowed');
      rate.failed(address);
      const wait = await counted(rate, address);
      assert.ok(wait > 0 && wait <= 60, `blocked for ${wait} s`);
      assert.equal(rate.blocking, true);
      assert.equal(await counted(rate, name('198.51.100.1')), 0, 'another address is not');
    });
  });
}

test('without Redis, failure counts are kept for a bounded number of addresses, oldest out first', async () => {
  const rate = await limits({
    perCredential: undefined,
    authFailures: { points: 2, seconds: 60 },
    maxTrackedAddresses: 3,
  });
  rate.failed('192.0.2.1');
  // Three newer addresses push the first one's count out...
  for (const address of ['192.0.2.2', '192.0.2.3', '192.0.2.4']) rate.failed(address);
  rate.failed('192.0.2.1');
  assert.equal(await counted(rate, '192.0.2.1'), 0, 'its second failure starts a new count');
  // ...while one that stays among the newest is blocked at its budget as ever.
  rate.failed('192.0.2.4');
  assert.ok((await counted(rate, '192.0.2.4')) > 0);
});

describe('rate limits shared through Redis', { skip: !redisAvailable }, () => {
  test('two processes spend one budget, and a failure budget spent through one blocks on the other', async () => {
    const budget = {
      perCredential: { points: 4, seconds: 10 },
      authFailures: { points: 2, seconds: 60 },
      redisUrl: REDIS_URL,
    };
    const one = await limits(budget);
    const two = await limits(budget);
    const key = `shared-${randomBytes(4).toString('hex')}`;
    const allowed = [];
    for (const rate of [one, two, one, two, one]) allowed.push((await rate.spend(key)!).allowed);
    assert.deepEqual(allowed, [true, true, true, true, false]);
    const address = `shared-${randomBytes(4).toString('hex')}`;
    one.failed(address);
    one.failed(address);
    assert.ok((await counted(two, address)) > 0);
  });
});

describe('a Redis that does not answer', () => {
  test('lets requests through with one warning', async () => {
    const warnings: string[] = [];
    const rate = await limits({
      perCredential: { points: 1, seconds: 10 },
      authFailures: { points: 1, seconds: 60 },
      // Nothing listens on port 1.
      redisUrl: 'redis://127.0.0.1:1',
      warn: (message) => warnings.push(message),
    });
    for (let i = 0; i < 3; i++) assert.equal((await rate.spend('k')!).allowed, true);
    rate.failed('192.0.2.1');
    rate.failed('192.0.2.1');
    assert.equal(await counted(rate, '192.0.2.1'), 0);
    assert.equal(warnings.length, 2, 'one at start, one when requests are let through');
    assert.match(warnings[0]!, /not answering yet/);
    assert.match(warnings[1]!, /Redis is not answering/);
  });
});

describe('a Redis that stops answering', () => {
  test('lets requests through with a warning, rather than holding them', { timeout: 20_000 }, async () => {
    // Answers the client's handshake, then nothing: a Redis frozen or cut off without a reset.
    let frozen = false;
    let commands = 0;
    const sockets = new Set<net.Socket>();
    const fake = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('data', (chunk) => {
        const sent = chunk
          .toString('latin1')
          .split(/\*\d+\r\n/)
          .slice(1);
        if (frozen) {
          commands += sent.length;
          return;
        }
        for (const command of sent) {
          const info = 'loading:0\r\n';
          socket.write(/\bINFO\b/i.test(command) ? `$${info.length}\r\n${info}\r\n` : '+OK\r\n');
        }
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    const { port } = fake.address() as net.AddressInfo;
    try {
      const warnings: string[] = [];
      const rate = await limits({
        perCredential: { points: 1, seconds: 10 },
        authFailures: { points: 1, seconds: 60 },
        redisUrl: `redis://127.0.0.1:${port}`,
        warn: (message) => warnings.push(message),
      });
      assert.deepEqual(warnings, [], 'it answered the handshake');
      frozen = true;
      assert.equal((await rate.spend('k')!).allowed, true);
      assert.match(warnings[0] ?? '', /Redis is not answering/);

      // The next requests do not each send a command and wait out its timeout: Redis rests.
      const before = commands;
      for (let i = 0; i < 5; i++) {
        assert.equal((await rate.spend('k')!).allowed, true);
        assert.equal(await rate.blockedFor('192.0.2.9'), 0);
        rate.failed('192.0.2.9');
      }
      assert.equal(commands, before, 'nothing sent to a Redis known to be away');

      // After the rest, one request tries it again, and the others do not pile onto that try.
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      await Promise.all([rate.spend('k'), rate.spend('k'), rate.spend('k')]);
      assert.equal(commands - before, 1, 'one try after the rest');
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => fake.close(resolve));
    }
  });
});

test('a lockout is told once, with the address and how long; the next window’s lockout again', async () => {
  const told: Array<[string, number]> = [];
  const limits = await createRateLimits({
    perCredential: undefined,
    authFailures: { points: 2, seconds: 1 },
    lockedOut: (address, seconds) => told.push([address, seconds]),
  });
  for (let i = 0; i < 5; i++) limits.failed('203.0.113.7');
  assert.deepEqual(told, [['203.0.113.7', 1]]);
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  assert.equal(limits.blockedFor('203.0.113.7'), 0);
  for (let i = 0; i < 3; i++) limits.failed('203.0.113.7');
  assert.equal(told.length, 2);
  await limits.close();
});

test('a wall clock stepped back (NTP, a restored VM) neither lengthens a lockout nor its window', async () => {
  mock.timers.enable({ apis: ['Date'], now: Date.now() });
  try {
    const rate = await limits({ perCredential: undefined, authFailures: { points: 2, seconds: 60 } });
    rate.failed('203.0.113.9');
    rate.failed('203.0.113.9');
    assert.equal(rate.blockedFor('203.0.113.9'), 60);
    mock.timers.setTime(Date.now() - 3_600_000);
    assert.equal(rate.blockedFor('203.0.113.9'), 60, 'still the rest of its minute, not an hour more');
    // A window opened before the step closes a minute after it opened, as it would have.
    rate.failed('203.0.113.10');
    mock.timers.setTime(Date.now() + 3_600_000);
    rate.failed('203.0.113.10');
    assert.equal(rate.blockedFor('203.0.113.10'), 60, 'a step forward does not cut a window short');
  } finally {
    mock.timers.reset();
  }
});

test('a per-credential budget holds over a window longer than a timer can wait (24.8 days)', async () => {
  const rate = await limits({
    perCredential: { points: 2, seconds: 30 * 86_400 },
    authFailures: { points: 30, seconds: 60 },
  });
  const allowed = [];
  for (let i = 0; i < 4; i++) {
    allowed.push((await rate.spend('key')!).allowed);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.deepEqual(allowed, [true, true, false, false]);
});

test('a wall clock stepped back does not stretch a per-credential Retry-After', async () => {
  mock.timers.enable({ apis: ['Date'], now: Date.now() });
  try {
    const rate = await limits({
      perCredential: { points: 1, seconds: 10 },
      authFailures: { points: 30, seconds: 60 },
    });
    assert.equal((await rate.spend('key')!).allowed, true);
    mock.timers.setTime(Date.now() - 3_600_000);
    const refused = await rate.spend('key')!;
    assert.equal(refused.allowed, false);
    assert.equal(refused.resetSeconds, 10, 'the rest of its window, not an hour more');
  } finally {
    mock.timers.reset();
  }
});
