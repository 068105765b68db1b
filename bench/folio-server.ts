import { freePort, type ServerProcess, startServer } from '../packages/server/src/test/server-process.ts';
import type { BenchStore } from './stores.ts';

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

/** A Folio server child on `store` with the bench admin token, no demo and a quiet log; `env` adds to it. */
export async function startFolio(
  store: BenchStore,
  env: Record<string, string> = {},
): Promise<{ server: ServerProcess; origin: string }> {
  const port = await freePort();
  const server = await startServer({
    PORT: String(port),
    ...store.env,
    FOLIO_ADMIN_TOKEN: ADMIN_TOKEN,
    FOLIO_DEMO: 'false',
    LOG_LEVEL: 'warn',
    ...env,
  });
  return { server, origin: `http://127.0.0.1:${port}` };
}
