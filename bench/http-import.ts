import { type ServerProcess, stop } from '../packages/server/src/test/server-process.ts';
import { catalogueArticle } from './catalogue.ts';
import { adminApi, startFolio } from './folio-server.ts';
import { prepareStore } from './stores.ts';

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
    const folio = await startFolio(store);
    server = folio.server;
    const api = adminApi(folio.origin);
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
