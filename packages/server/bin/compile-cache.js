// Preloaded (`node --import`) by every server process, before any TypeScript is loaded: turns
// on Node's compile cache, which keeps each module's stripped JavaScript and V8 code cache on
// disk. A server started again then neither loads Node's TypeScript stripper (a WebAssembly
// module that stays resident: about 20 MB of the idle server's 140) nor compiles its modules
// anew. `npm install` fills the cache (`prepare`); a changed file is stripped again on its
// next load and replaces its entry. JavaScript, since it must run before anything is stripped.
import module from 'node:module';
import { fileURLToPath } from 'node:url';

const COMPILE_CACHE_DIR = fileURLToPath(
  new URL('../../../node_modules/.cache/folio-compile', import.meta.url),
);

// Absent before Node 22.1; the launcher (`bin/folio.js`) refuses such a Node anyway.
module.enableCompileCache?.(COMPILE_CACHE_DIR);
