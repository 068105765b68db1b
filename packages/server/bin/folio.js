#!/usr/bin/env node
// The `folio` command: the CLI's TypeScript entry on Folio's Node with Folio's flags (launch.js).
// `folio start` is what `npm start` runs.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandFlags, launch, serverFlags } from './launch.js';

const entry = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'cli', 'main.ts');
const SERVER_COMMANDS = new Set(['start', 'worker']);
const server = SERVER_COMMANDS.has(process.argv[2]);
launch([...(server ? serverFlags() : commandFlags()), entry, ...process.argv.slice(2)], { server });
