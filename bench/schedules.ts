import { type ServerProcess, stop } from '../packages/server/src/test/server-process.ts';
import { adminApi, startFolio } from './folio-server.ts';
import { prepareStore } from './stores.ts';
import { startBenchReceiver } from './webhooks.ts';

/** A burst of articles scheduled to publish at one instant, as a newsroom's midnight is. */
export interface ScheduleBurst {
  database: string;
  articles: number;
  /** From the scheduled time to the first article served to a content key, milliseconds. */
  firstServedMs: number;
  /** From the scheduled time to the whole burst served. */
  allServedMs: number;
  /** From the scheduled time to the last `content.created` at the receiver. */
  allDeliveredMs: number;
}

// Time to ingest the burst before it comes due, per article, beyond the scheduler's lookahead.
const LEAD_MS_PER_ARTICLE = 20;

/**
 * A Folio server child on SQLite (or the PostgreSQL at `databaseUrl`) with `articles` articles
 * of one project set to publish at the same time; a content key polls the list's total every
 * 10 ms and a receiver notes each webhook.
 */
export async function benchScheduleBurst(options: {
  articles: number;
  databaseUrl: string | undefined;
}): Promise<ScheduleBurst> {
  const store = await prepareStore(options.databaseUrl);
  const receiver = await startBenchReceiver();
  let server: ServerProcess | undefined;
  try {
    const folio = await startFolio(store, { FOLIO_WEBHOOK_ALLOW_PRIVATE: 'true' });
    server = folio.server;
    const { origin } = folio;
    const api = adminApi(origin);
    const projectId = (await api('POST', '/projects', { name: 'schedule burst' })).id;
    const { key } = await api<{ key: string }>('POST', `/projects/${projectId}/keys`, { name: 'bench' });
    await api('PUT', `/projects/${projectId}/webhook`, { url: `${receiver.url}/${projectId}` });
    const ids = Array.from({ length: options.articles }, (_, i) => `a${i}`);
    const dueAt = Date.now() + 3_000 + options.articles * LEAD_MS_PER_ARTICLE;
    const publishAt = new Date(dueAt).toISOString();
    let next = 0;
    const writer = async () => {
      while (next < ids.length) {
        const id = ids[next++]!;
        await api('PUT', `/projects/${projectId}/articles/${id}`, {
          slug: id,
          title: `Article ${id}`,
          blocks: [{ type: 'paragraph', content: [{ text: `Scheduled article ${id}.` }] }],
          publishAt,
        });
      }
    };
    await Promise.all(Array.from({ length: 4 }, writer));
    if (Date.now() > dueAt - 2_000) throw new Error('the burst was not ingested in time; raise the lead');
    const delivered = receiver.expect(projectId, ids);
    const total = async () => {
      const response = await fetch(`${origin}/api/v1/projects/${projectId}/content?limit=1`, {
        headers: { authorization: `Bearer ${key}` },
      });
      return ((await response.json()) as { pagination: { total: number } }).pagination.total;
    };
    let firstServedMs: number | undefined;
    for (;;) {
      const served = await total();
      const since = Date.now() - dueAt;
      if (served > 0) firstServedMs ??= since;
      if (served === ids.length) {
        const { arrivals } = await delivered;
        // The receiver notes arrivals on the performance clock; its origin is this process's start.
        const last = Math.max(...arrivals.values()) + performance.timeOrigin;
        return {
          database: store.name,
          articles: ids.length,
          firstServedMs: firstServedMs!,
          allServedMs: since,
          allDeliveredMs: last - dueAt,
        };
      }
      if (since > 120_000) throw new Error(`only ${served} of ${ids.length} were served after 2 minutes`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    if (server) await stop(server);
    await receiver.close();
    await store.drop();
  }
}
