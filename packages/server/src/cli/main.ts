import { runCli } from './run.ts';

// The `folio` command (bin/folio.js runs this file). `start` and `worker` keep running after
// runCli returns; everything else ends when its database handle closes.
if (import.meta.main) {
  process.exitCode = await runCli(process.argv.slice(2), {
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
  });
}
