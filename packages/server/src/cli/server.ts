import { openDatabase } from '../db/connect.ts';
import { start } from '../main.ts';
import { startWorker } from '../worker.ts';
import { type CommandSpec, EXIT_OK } from './context.ts';

const startCommand: CommandSpec = {
  name: 'start',
  summary: 'Start the server (HTTP APIs, webhook dispatcher, publishing scheduler)',
  usage: 'folio start',
  help: `Starts Folio exactly as \`npm start\` does: applies migrations, listens on HOST:PORT and runs
the webhook dispatcher and the publishing scheduler until SIGTERM or SIGINT. Configured by
environment variables, not options (PORT, HOST, DATABASE_URL, FOLIO_DATA_DIR, …; see the
README's Configuration), e.g. PORT=9000 folio start.`,
  noJson: true,
  async run(context) {
    await start(context.config());
    return EXIT_OK;
  },
};

const workerCommand: CommandSpec = {
  name: 'worker',
  summary: 'Run only the webhook dispatcher and the publishing scheduler',
  usage: 'folio worker',
  help: `Runs only the webhook dispatcher and the publishing scheduler (as \`npm run worker\`), for
operators who deliver webhooks and apply schedules apart from the HTTP servers. Stops on SIGTERM
or SIGINT.`,
  noJson: true,
  async run(context) {
    await startWorker(context.config());
    return EXIT_OK;
  },
};

const migrateCommand: CommandSpec = {
  name: 'migrate',
  summary: 'Apply pending database migrations',
  usage: 'folio migrate [--json]',
  help: `Applies pending migrations to the configured database and prints their names (with --json:
{ database, location, applied }). Every other command does this first, too.`,
  async run(context) {
    const handle = await openDatabase(context.config());
    try {
      const applied = await handle.migrate();
      context.print({ database: handle.dialect, location: handle.location, applied }, () =>
        applied.length === 0
          ? `The ${handle.dialect} database at ${handle.location} is up to date.`
          : `Applied ${applied.length} migration${applied.length > 1 ? 's' : ''} to ${handle.location}: ${applied.join(', ')}`,
      );
    } finally {
      await handle.db.destroy();
    }
    return EXIT_OK;
  },
};

export const serverCommands = [startCommand, workerCommand, migrateCommand];
