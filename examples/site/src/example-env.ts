import net from 'node:net';
import { fileURLToPath } from 'node:url';

/**
 * Where `npm run example` keeps its Folio's database: its own directory, never the `./data` of
 * `npm start`, whose demo project the example would otherwise rewrite (website URL, preview URL,
 * webhook, keys). Gitignored; delete it to start over.
 */
export const EXAMPLE_DATA_DIR = fileURLToPath(new URL('../data', import.meta.url));

/** The example site's port when `PORT` is not set and it is free. */
export const PREFERRED_SITE_PORT = 3000;

// Variables of a Folio the user runs with `npm start` that would point the example's Folio at
// that Folio's database or address.
const NOT_INHERITED = ['DATABASE_URL', 'FOLIO_DATA_DIR', 'FOLIO_BASE_URL', 'PORT'];

/** Whether something already listens on `port` (on any address). */
function isTaken(port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' || error.code === 'EACCES' ? resolve(true) : reject(error),
    );
    probe.listen(port, () => probe.close(() => resolve(false)));
  });
}

/**
 * `preferred` when nothing listens on it, else a port the system has free now.
 * @example
 * await findFreePort(3000); // 3000, or e.g. 41237 when 3000 is taken
 */
export async function findFreePort(preferred?: number): Promise<number> {
  if (preferred !== undefined && !(await isTaken(preferred))) return preferred;
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** The ports of `npm run example`: `FOLIO_PORT` and `PORT` when set, else free ones. */
export async function examplePorts(env: Record<string, string | undefined>): Promise<{
  folio: number;
  site: number;
}> {
  // Folio never defaults to 8080, so `npm start` can run beside the example.
  const folio = env.FOLIO_PORT ? parsePort('FOLIO_PORT', env.FOLIO_PORT) : await findFreePort();
  const site = env.PORT ? parsePort('PORT', env.PORT) : await findFreePort(PREFERRED_SITE_PORT);
  return { folio, site };
}

function parsePort(name: string, raw: string): number {
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port < 1 || port > 65535) {
    throw new Error(`${name}=${JSON.stringify(raw)} is not a port number from 1 to 65535`);
  }
  return port;
}

/**
 * The environment the example starts its Folio with: the embedded database in
 * `EXAMPLE_DATA_DIR`, demo data, and webhooks allowed to this machine, whatever the shell sets
 * for `npm start`.
 */
export function exampleFolioEnv(
  env: Record<string, string | undefined>,
  options: { port: number; adminToken: string },
): Record<string, string> {
  const inherited = Object.entries(env).filter(
    (entry): entry is [string, string] => entry[1] !== undefined && !NOT_INHERITED.includes(entry[0]),
  );
  return {
    ...Object.fromEntries(inherited),
    PORT: String(options.port),
    FOLIO_DATA_DIR: EXAMPLE_DATA_DIR,
    FOLIO_DEMO: 'true',
    FOLIO_ADMIN_TOKEN: options.adminToken,
    // The site's webhook receiver listens on this machine.
    FOLIO_WEBHOOK_ALLOW_PRIVATE: 'true',
    LOG_LEVEL: env.LOG_LEVEL ?? 'warn',
  };
}
