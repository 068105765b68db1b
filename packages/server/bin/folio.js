#!/usr/bin/env node
// The `folio` command. Folio is TypeScript run by Node's type stripping, so this launcher
// re-executes the TypeScript entry on the Node the repository pins (the `node` dev dependency,
// node_modules/.bin/node), or on this Node when it is already new enough. Plain JavaScript that
// Node 20 can run, so `npx folio` works whatever `node` is on the PATH.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const entry = path.join(here, '..', 'src', 'cli', 'main.ts');
const compileCache = path.join(here, 'compile-cache.js');

function pinnedNode() {
  for (let dir = here; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', '.bin', 'node');
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

function canStripTypes(version) {
  const [major, minor] = version.slice(1).split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 13);
}

const node = pinnedNode() ?? (canStripTypes(process.version) ? process.execPath : undefined);
if (!node) {
  process.stderr.write(
    `folio: needs Node 22.13 or newer (this is ${process.version}); run \`npm install\` in the repository to get it\n`,
  );
  process.exit(2);
}

// The heap of a server (BENCHMARKS.md): semi-spaces of 8 MB, since Node's default of 32 MB buys
// no throughput on Folio's workloads and keeps over 100 MB more resident under load; and an old
// generation bounded at 512 MB, since V8 sizes its growth steps by that bound (by default a
// quarter of the machine's memory) and let 200 MB of garbage pile up between full collections.
// The live heap of a server is tens of MB (ready answers are kept outside it). Other commands
// (an import holds its whole file) keep Node's default bound.
const SERVER_COMMANDS = new Set(['start', 'worker']);
const heap = ['--max-semi-space-size=8'];
if (SERVER_COMMANDS.has(process.argv[2])) heap.push('--max-old-space-size=512');

const child = spawn(
  node,
  [
    `--import=${pathToFileURL(compileCache).href}`,
    '--conditions=folio-source',
    '--disable-warning=ExperimentalWarning',
    ...heap,
    entry,
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit' },
);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => child.kill(signal));
}
child.on('error', (error) => {
  process.stderr.write(`folio: could not run ${node}: ${error.message}\n`);
  process.exit(2);
});
child.on('exit', (code, signal) => {
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
