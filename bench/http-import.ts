import {
  freePort,
  type ServerProcess,
  startServer,
  stop,
} from '../packages/server/src/test/server-process.ts';
import { catalogueArticle } from './catalogue.ts';
import { prepareStore } from './stores.ts';

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
    const port = await freePort();
    server = await startServer({
      PORT: String(port),
      ...store.env,
      FOLIO_ADMIN_TOKEN: ADMIN_TOKEN,
      FOLIO_DEMO: 'false',
    });
    const api = adminApi(`http://127.0.0.1:${port}`);
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
