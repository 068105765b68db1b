#!/usr/bin/env node
// The `folio` command: the CLI's TypeScript entry on Folio's Node with Folio's flags (launch.js).
// `folio start` is what `npm start` runs. Every command watches this launcher, to stop with it.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandFlags, launch, serverFlags } from './launch.js';

const entry = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'cli', 'main.ts');
const SERVER_COMMANDS = new Set(['start', 'worker']);
const flags = SERVER_COMMANDS.has(process.argv[2]) ? serverFlags() : commandFlags();
launch([...flags, entry, ...process.argv.slice(2)], { watched: true });
