import { runCli } from './run.ts';

// The `folio` command (bin/folio.js runs this file). `start` and `worker` keep running after
// runCli returns; other commands end once their database handle is closed. A failure exits at
// once: a server that failed to start may hold handles that would keep the process alive.
if (import.meta.main) {
  const code = await runCli(process.argv.slice(2), {
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
  });
  if (code !== 0) process.exit(code);
}
