import { watchLauncher } from '../watch-launcher.ts';
import { EXIT_BROKEN_PIPE, runCli } from './run.ts';

// The `folio` command (bin/folio.js runs this file). `start` and `worker` keep running after
// runCli returns; other commands end once their database handle is closed. A failure exits at
// once: a server that failed to start may hold handles that would keep the process alive.
if (import.meta.main) {
  // A command whose launcher was killed outright stops as on the SIGTERM the launcher would have
  // passed on: a server or a worker shuts down (runtime.ts, onSignals), any other command ends
  // where it is. Each write of a command is a transaction (an import without --continue-on-error
  // is one), so ending it midway leaves no half-written change and keeps what committed.
  watchLauncher(() => {
    process.stderr.write('folio: launcher gone; stopping as on SIGTERM\n');
    process.kill(process.pid, 'SIGTERM');
  });
  // A reader that goes away between two writes (`folio export | head`) is told by an 'error'
  // event on stdout, not by a write that fails, and an event nobody listens for ends the process
  // with a stack: it ends the command quietly instead, as SIGPIPE ends cat.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(EXIT_BROKEN_PIPE);
  });
  const code = await runCli(process.argv.slice(2), {
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
  });
  if (code !== 0) process.exit(code);
}
