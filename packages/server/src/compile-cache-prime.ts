import module from 'node:module';

/*
 * `npm install` runs this (the server package's `prepare`), preloaded with
 * `bin/compile-cache.js`: it loads every module a server process may load, so that even the
 * first start after an install finds them all in the compile cache and never loads the
 * TypeScript stripper. Loading is all: each entry only runs when it is the main module.
 */
const entries = [
  './main.ts',
  './worker.ts',
  './cli/main.ts',
  './db/postgres.ts',
  './db/postgres-change-token.ts',
  './db/sqlite.ts',
];
for (const entry of entries) await import(entry);
module.flushCompileCache();
const directory = module.getCompileCacheDir();
process.stdout.write(
  directory
    ? `folio: compile cache filled in ${directory}\n`
    : 'folio: no compile cache: run with --import ./bin/compile-cache.js\n',
);
