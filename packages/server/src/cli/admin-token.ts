import fs from 'node:fs';
import { ConfigError } from '../config.ts';
import { sqliteFile } from '../db/connect.ts';
import { redactUrl } from '../redact-url.ts';
import { resetAdminToken } from '../services/admin-auth.ts';
import { type CommandSpec, EXIT_OK } from './context.ts';

const resetCommand: CommandSpec = {
  name: 'admin-token reset',
  summary: 'Replace a lost admin token (shown once)',
  usage: 'folio admin-token reset [--json]',
  help: `Replaces the admin token that opens the management API and the dashboard, for when the one
printed at the first start is lost: it takes shell access to the server's configuration, not the
old token. Prints the new token once; only its hash is stored. Running servers keep accepting the
old token until they restart. Servers started with FOLIO_ADMIN_TOKEN use that token instead.`,
  async run(context) {
    const { databaseUrl, dataDir } = context.config();
    const where = databaseUrl ? redactUrl(databaseUrl, 'postgres') : sqliteFile(dataDir);
    // Run without the service's environment (in its install directory, say), the command would
    // make a new database of its own and a token no server reads.
    if (!databaseUrl && !fs.existsSync(where)) {
      throw new ConfigError([
        `there is no Folio database at ${where}: set FOLIO_DATA_DIR or DATABASE_URL as the server has them`,
      ]);
    }
    const token = await resetAdminToken(await context.deps());
    context.print(
      { token },
      () =>
        `New admin token (shown once; only its hash is stored):\n\n  ${token}\n\nStored in ${where}. Restart the servers that use it for it to take effect; the old token stops working then.`,
    );
    if (context.config().adminToken) {
      context.io.stderr.write(
        'folio admin-token reset: FOLIO_ADMIN_TOKEN is set; servers started with it use it, not the new token\n',
      );
    }
    return EXIT_OK;
  },
};

export const adminTokenCommands = [resetCommand];
