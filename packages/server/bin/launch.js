// Node's flags for Folio, in one place, and the launcher every entry point starts through: the
// `folio` command (bin/folio.js), every npm script (bin/node.js), the example site. Test helpers
// and the bench spawn servers they must be able to SIGKILL themselves, so they take the flags
// from here and skip the launcher's extra process. Plain JavaScript that Node 20 can run, so
// `npx folio` works whatever `node` is on the PATH.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Workspace packages resolve to their TypeScript sources; Node's stripping warning is noise. */
export const SOURCE_FLAGS = ['--conditions=folio-source', '--disable-warning=ExperimentalWarning'];

/** Preloads the compile cache (see `compile-cache.js`): what an installed server starts with. */
export const COMPILE_CACHE_FLAG = `--import=${pathToFileURL(path.join(here, 'compile-cache.js')).href}`;

/** Holds the shape of `process.nextTick`'s tick objects from the start (see `tick-shape.js`). */
const TICK_SHAPE_FLAG = `--import=${pathToFileURL(path.join(here, 'tick-shape.js')).href}`;

// The heap (BENCHMARKS.md, How the delivery path works, "A heap sized for a server"):
// semi-spaces of 8 MB, since Node's default of 32 MB buys no throughput on Folio's workloads
// and keeps far more resident under load; and for a server an old generation bounded at
// 512 MB, since V8 sizes its growth steps by that bound (by default a quarter of the machine's
// memory) and lets garbage pile up between full collections. The live heap of a server is
// small (ready answers are kept outside it). Other commands (an import holds its whole file)
// keep Node's default bound.
const SEMI_SPACE = '--max-semi-space-size=8';
const SERVER_OLD_SPACE = '--max-old-space-size=512';

// No allocation-site pretenuring in a server (BENCHMARKS.md, How the delivery path works, "A
// heap sized for a server"). V8 decides from the objects that survive its minor collections
// which allocation sites to allocate straight in the old generation, and a site so decided
// gives it no more feedback to decide otherwise. What survives a start-up is not what survives
// a server's steady state: some server processes went on, under load, with a full collection
// every few minor ones, each minor one slow and promoting much of what it saw.
const NO_PRETENURING = '--no-allocation-site-pretenuring';

/**
 * The flags of a long-running server or worker process. `FOLIO_SERVER_NODE_FLAGS` (a JSON array,
 * e.g. `["--cpu-prof"]`) adds flags for profiling the servers of a test or a benchmark.
 */
export function serverFlags() {
  const extra = process.env.FOLIO_SERVER_NODE_FLAGS;
  return [
    TICK_SHAPE_FLAG,
    COMPILE_CACHE_FLAG,
    ...SOURCE_FLAGS,
    SEMI_SPACE,
    SERVER_OLD_SPACE,
    NO_PRETENURING,
    ...(extra ? JSON.parse(extra) : []),
  ];
}

/** The flags of a short command of the `folio` CLI. */
export function commandFlags() {
  return [COMPILE_CACHE_FLAG, ...SOURCE_FLAGS, SEMI_SPACE];
}

/** The Node the repository pins (the `node` dev dependency), or this one when new enough. */
export function folioNode() {
  for (let dir = here; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', '.bin', 'node');
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) break;
  }
  const [major, minor] = process.version.slice(1).split('.').map(Number);
  if (major > 22 || (major === 22 && minor >= 13)) return process.execPath;
  process.stderr.write(
    `folio: needs Node 22.13 or newer (this is ${process.version}); run \`npm install\` in the repository to get it\n`,
  );
  process.exit(2);
}

/**
 * Runs Folio's Node with `args` as a child that gets this process's signals and exit code. A
 * `watched` child is told this process's pid, to stop if it goes (src/watch-launcher.ts): killed
 * without a signal to forward (SIGKILL), this process would otherwise leave it running orphaned,
 * a server holding its port, an import still writing.
 */
export function launch(args, { watched = false } = {}) {
  const node = folioNode();
  const { FOLIO_LAUNCHER_PID: _inherited, ...env } = process.env;
  if (watched) env.FOLIO_LAUNCHER_PID = String(process.pid);
  const child = spawn(node, args, { stdio: 'inherit', env });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => child.kill(signal));
  }
  child.on('error', (error) => {
    process.stderr.write(`folio: could not run ${node}: ${error.message}\n`);
    process.exit(2);
  });
  child.on('exit', (code, signal) => {
    if (!signal) process.exit(code ?? 1);
    // Die of the same signal, as a shell expects: without this handler, not by forwarding it
    // to a child that is gone and then exiting 0.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  });
}
