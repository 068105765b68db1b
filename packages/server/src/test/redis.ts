import net from 'node:net';

/**
 * Redis for tests of shared rate-limit budgets: at 127.0.0.1:6379 (or FOLIO_TEST_REDIS_URL).
 * In CI (CI=true) it must answer; elsewhere its suites are skipped with a loud message.
 */
export const REDIS_URL = process.env.FOLIO_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisAnswers(): Promise<boolean> {
  const url = new URL(REDIS_URL);
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port || 6379), url.hostname);
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(2_000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('data', (data) => done(data.toString().startsWith('+PONG')));
    socket.on('connect', () => socket.write('PING\r\n'));
  });
}

export const redisAvailable = await redisAnswers();
if (!redisAvailable) {
  if (process.env.CI === 'true')
    throw new Error(`Redis is required in CI but does not answer at ${REDIS_URL}`);
  process.stderr.write(
    `\n!!! Redis does not answer at ${REDIS_URL}: the Redis rate-limit suites are SKIPPED in this run.\n\n`,
  );
}
