import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ServerProcess, stop } from '../packages/server/src/test/server-process.ts';
import { adminApi, startFolio } from './folio-server.ts';
import { prepareStore } from './stores.ts';

/** One pass of the webhook case: K articles published by `concurrency` parallel writers. */
export interface WebhookPass {
  name: string;
  database: string;
  articles: number;
  concurrency: number;
  /** Publish (PUT sent) to arrival at the receiver, milliseconds. */
  latencyP50: number;
  latencyP99: number;
  latencyMax: number;
  /** Articles / (last arrival − first PUT sent). */
  deliveriesPerSecond: number;
  /** Articles / (last PUT answered − first PUT sent): how fast events were produced. */
  publishesPerSecond: number;
  /** Last arrival − last PUT answered: the backlog left when publishing stopped. */
  drainMs: number;
  /** Requests the receiver got beyond one per article (at-least-once may resend). */
  duplicates: number;
}

/**
 * Publish-to-receiver latency and deliveries per second: a Folio server child on SQLite (or the
 * PostgreSQL at `databaseUrl`), a receiver in this process answering 204 at once, articles
 * published through the management API.
 */
export async function benchWebhooks(options: {
  articles: number;
  databaseUrl: string | undefined;
}): Promise<WebhookPass[]> {
  const store = await prepareStore(options.databaseUrl);
  const receiver = await startBenchReceiver();
  let server: ServerProcess | undefined;
  try {
    const folio = await startFolio(store, { FOLIO_WEBHOOK_ALLOW_PRIVATE: 'true' });
    server = folio.server;
    const api = adminApi(folio.origin);
    const passes: WebhookPass[] = [];
    for (const concurrency of [1, 16]) {
      const projectId = await api('POST', '/projects', { name: `bench ${concurrency}` }).then((p) => p.id);
      await api('PUT', `/projects/${projectId}/webhook`, { url: `${receiver.url}/${projectId}` });
      await api('POST', `/projects/${projectId}/webhook/reveal-secret`);
      const pass = await publishAndWait(api, receiver, projectId, options.articles, concurrency);
      passes.push({
        name: concurrency === 1 ? 'one writer' : `${concurrency} writers`,
        database: store.name,
        ...pass,
      });
    }
    return passes;
  } finally {
    if (server) await stop(server);
    await receiver.close();
    await store.drop();
  }
}

type Api = (method: string, path: string, body?: unknown) => Promise<{ id: string }>;

async function publishAndWait(
  api: Api,
  receiver: BenchReceiver,
  projectId: string,
  articles: number,
  concurrency: number,
): Promise<Omit<WebhookPass, 'name' | 'database'>> {
  const sentAt = new Map<string, number>();
  const ids = Array.from({ length: articles }, (_, i) => `a${i}`);
  const done = receiver.expect(projectId, ids);
  let next = 0;
  const writer = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      sentAt.set(id, performance.now());
      await api('PUT', `/projects/${projectId}/articles/${id}`, {
        slug: id,
        title: `Article ${id}`,
        blocks: [{ type: 'paragraph', content: [{ text: `Benchmark article ${id}.` }] }],
        published: true,
      });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, writer));
  const published = performance.now();
  const { arrivals, duplicates } = await done;
  const latencies = ids.map((id) => arrivals.get(id)! - sentAt.get(id)!).sort((a, b) => a - b);
  const first = Math.min(...sentAt.values());
  const last = Math.max(...arrivals.values());
  return {
    articles,
    concurrency,
    latencyP50: percentile(latencies, 0.5),
    latencyP99: percentile(latencies, 0.99),
    latencyMax: latencies.at(-1)!,
    deliveriesPerSecond: articles / ((last - first) / 1000),
    publishesPerSecond: articles / ((published - first) / 1000),
    drainMs: Math.max(0, last - published),
    duplicates,
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}

export interface BenchReceiver {
  url: string;
  /** Resolves when every id of the project arrived, with the first arrival time of each. */
  expect(projectId: string, ids: string[]): Promise<{ arrivals: Map<string, number>; duplicates: number }>;
  close(): Promise<void>;
}

/** A receiver that answers 204 at once and notes when each article's event arrived. */
export async function startBenchReceiver(): Promise<BenchReceiver> {
  const waiting = new Map<
    string,
    { want: number; arrivals: Map<string, number>; duplicates: number; resolve: () => void }
  >();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      response.writeHead(204).end();
      const projectId = request.url!.split('/').at(-1)!;
      const entry = waiting.get(projectId);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { id?: string } };
      if (!entry || !body.data.id) return;
      if (entry.arrivals.has(body.data.id)) entry.duplicates += 1;
      else entry.arrivals.set(body.data.id, at);
      if (entry.arrivals.size === entry.want) entry.resolve();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    expect(projectId, ids) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`deliveries for ${projectId} did not all arrive`)),
          300_000,
        );
        const entry = {
          want: ids.length,
          arrivals: new Map<string, number>(),
          duplicates: 0,
          resolve: () => {
            clearTimeout(timer);
            // Late duplicates are counted for a moment longer before the pass reports.
            setTimeout(() => resolve({ arrivals: entry.arrivals, duplicates: entry.duplicates }), 1_000);
          },
        };
        waiting.set(projectId, entry);
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
