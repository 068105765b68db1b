import { startNewChangeHistory } from '../services/change-history.ts';
import { type CommandSpec, EXIT_OK } from './context.ts';

const resetCommand: CommandSpec = {
  name: 'changes reset',
  summary: 'Make every site sync anew after a restore (changes feed)',
  usage: 'folio changes reset [--json]',
  help: `Starts a new history of changes: every changes-feed cursor a site holds is then answered
410 cursor_expired, and the site reads the published set anew (client.sync() and the Astro
loader do it by themselves). Run it after restoring the database from a file-system snapshot,
a point-in-time recovery, or a copy of a stopped SQLite file: such a copy keeps the history it
lost changes of, and a site's cursor could read as a position in it. A copy \`folio backup\`
wrote, or a pg_dump restored into a new database, needs no reset.

Stop every server first, and start them after: a running server keeps the history it started
with (on PostgreSQL the command refuses while servers run).`,
  async run(context) {
    const tag = await startNewChangeHistory(await context.deps());
    context.print(
      { history: tag },
      () =>
        `Started a new history of changes (${tag}). Cursors from before are answered 410 and sites sync anew; start the servers now.`,
    );
    return EXIT_OK;
  },
};

export const changesCommands = [resetCommand];
