#!/usr/bin/env node
// Folio's Node for the repository's own scripts (tests, bench, code generation): Node with the
// source flags of launch.js and the arguments given, e.g. `node bin/node.js --test 'src/**/*.test.ts'`.
// A first argument `--server` gives the flags of a server process instead (the compile cache's
// priming runs with them, so it caches what a server loads).
import { launch, SOURCE_FLAGS, serverFlags } from './launch.js';

const [first, ...rest] = process.argv.slice(2);
launch(first === '--server' ? [...serverFlags(), ...rest] : [...SOURCE_FLAGS, ...process.argv.slice(2)]);
