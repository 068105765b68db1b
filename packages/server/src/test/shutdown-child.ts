// A process whose shutdown never finishes, for the test of the forced exit: it says "ready",
// then on SIGTERM starts one step that finishes and one that does not.
import { createLogger } from '../logger.ts';
import { onSignals } from '../runtime.ts';

const logger = createLogger('info', { fd: 1, bufferBytes: 64 * 1024, reportEveryMs: 60_000 });
onSignals(
  logger,
  async (step) => {
    await Promise.all([step('quick', Promise.resolve()), step('stuck', new Promise(() => {}))]);
  },
  Number(process.env.GRACE_MS),
);
process.stdout.write('ready\n');
// Keeps the process alive until the signal, as a server's listening socket would.
setInterval(() => {}, 60_000);
