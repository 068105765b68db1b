import {
  freePort,
  type ServerProcess,
  startServer,
  stop,
} from '../packages/server/src/test/server-process.ts';
import { catalogueArticle } from './catalogue.ts';
import { type BenchStore, prepareStore } from './stores.ts';

export const ADMIN_TOKEN = 'bench-admin-token-0123456789';

/** Calls the management API of the server at `origin` with the bench admin token. */
export function adminApi(origin: string) {
  return async <T = { id: string }>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${origin}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body ?? {}),
    });
    if (!response.ok)
      throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
    return ((await response.json()) as { data: T }).data;
  };
}

/** A Folio server child on `store` with the bench admin token and no demo, and its management API. */
export async function startBenchServer(store: BenchStore, env: Record<string, string> = {}) {
  const port = await freePort();
  const server = await startServer({
    PORT: String(port),
    ...store.env,
    FOLIO_ADMIN_TOKEN: ADMIN_TOKEN,
    FOLIO_DEMO: 'false',
    ...env,
  });
  const origin = `http://127.0.0.1:${port}`;
  return { server, origin, api: adminApi(origin) };
}

/**
 * Imports `articles` catalogue articles through the management API (one `PUT` each, `clients`
 * in flight) into a fresh server and store; returns the wall time in milliseconds.
 */
export async function timeHttpImport(options: {
  databaseUrl: string | undefined;
  articles: number;
  clients: number;
}): Promise<number> {
  const store = await prepareStore(options.databaseUrl);
  let server: ServerProcess | undefined;
  try {
    const bench = await startBenchServer(store);
    server = bench.server;
    const { api } = bench;
    const project = await api('POST', '/projects', { name: 'import', websiteUrl: 'https://www.example.com' });
    let next = 0;
    const client = async () => {
      for (let i = next++; i < options.articles; i = next++) {
        const { id, input } = catalogueArticle(i);
        await api('PUT', `/projects/${project.id}/articles/${id}`, input);
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: options.clients }, client));
    return performance.now() - started;
  } finally {
    if (server) await stop(server);
    await store.drop();
  }
}
