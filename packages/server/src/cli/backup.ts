import fs from 'node:fs';
import path from 'node:path';
import { sqliteFile } from '../db/connect.ts';
import { backupSqlite } from '../db/sqlite-backup.ts';
import { AppError } from '../errors.ts';
import { startNewHistoryIn } from '../services/change-history.ts';
import { type CommandSpec, EXIT_OK } from './context.ts';

export const backupCommand: CommandSpec = {
  name: 'backup',
  summary: 'Copy the SQLite database to a file while servers keep running',
  usage: 'folio backup FILE [--force] [--json]',
  help: `Writes a consistent copy of the embedded SQLite database (FOLIO_DATA_DIR/folio.sqlite) to
FILE with SQLite's online backup: one snapshot of every commit made before it started, taken
while servers keep reading and writing. To restore, stop the servers and put the copy in place
as folio.sqlite (removing folio.sqlite-wal and folio.sqlite-shm), or point FOLIO_DATA_DIR at a
directory holding it as folio.sqlite.

It copies the database as it is: it applies no migrations, so a copy taken before an upgrade
is the database the old version ran on. On PostgreSQL it copies nothing and says how to use
pg_dump instead.

Options:
  --force   replace FILE if it exists (without it, an existing FILE is an error)
            with --json, a summary { database, output, bytes, pages } is printed`,
  options: { force: { type: 'boolean' } },
  positionals: ['FILE'],
  async run(context, { values, positionals }) {
    const config = context.config();
    if (config.databaseUrl) throw postgresAdvice();
    const source = sqliteFile(config.dataDir);
    const output = path.resolve(context.io.cwd ?? process.cwd(), positionals[0]!);
    if (!fs.existsSync(source)) {
      throw new AppError('not_found', `There is no database at ${source} to back up (see FOLIO_DATA_DIR).`);
    }
    if (!fs.existsSync(path.dirname(output))) {
      const why = `Cannot write ${output}: the directory ${path.dirname(output)} does not exist (create it first).`;
      throw new AppError('invalid_body', why);
    }
    // The copy is written beside its target and renamed over it: onto the live file (or its
    // log), that would swap a running server's database from under it.
    const real = (file: string) => (fs.existsSync(file) ? fs.realpathSync(file) : file);
    if ([source, `${source}-wal`, `${source}-shm`].map(real).includes(real(output))) {
      throw new AppError(
        'invalid_body',
        `${output} is the database being backed up (or its log); choose another file.`,
      );
    }
    const replace = values.force === true;
    if (!replace && fs.existsSync(output)) {
      throw new AppError('conflict', `${output} exists; pass --force to replace it.`);
    }
    const amend = startNewHistoryIn;
    const { bytes, pages } = await backupSqlite(source, output, { replace, amend }).catch(
      (error: unknown) => {
        throw describeFailure(error, output);
      },
    );
    context.print(
      { database: source, output, bytes, pages },
      () => `Backed up ${source} to ${output}: ${bytes.toLocaleString('en')} bytes, ${pages} pages.`,
    );
    return EXIT_OK;
  },
};

function postgresAdvice(): AppError {
  return new AppError(
    'conflict',
    'This database is PostgreSQL, which `folio backup` does not copy: use pg_dump, e.g. ' +
      'pg_dump --format=custom --file=folio.dump "$DATABASE_URL" ' +
      "(restore into an empty database that Folio's role owns, createdb --owner=ROLE NAME, with " +
      'pg_restore --no-owner --dbname="$DATABASE_URL" folio.dump).',
  );
}

function describeFailure(error: unknown, output: string): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EEXIST') return new AppError('conflict', `${output} exists; pass --force to replace it.`);
  if (code === 'ENOENT' || code === 'EACCES' || code === 'ERR_SQLITE_ERROR') {
    return new AppError('invalid_body', `Cannot write ${output} (${(error as Error).message}).`);
  }
  return error;
}
