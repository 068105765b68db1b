import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got, with what signature verification made of it. */
export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  json: { event: string; projectId: string; timestamp: string; data: Record<string, unknown> };
  /** For each secret the receiver holds: did `Webhook.verify` accept the raw body? */
  verified: boolean[];
  at: number;
}

export type Reply = { status: number; headers?: Record<string, string>; body?: string; delayMs?: number };

/**
 * A real webhook receiver on 127.0.0.1 for tests. It verifies every request against the raw
 * body with the official `standardwebhooks` library, and answers as the test tells it to.
 */
export interface Receiver {
  url: string;
  received: Received[];
  /** Runs when a request arrives, before the receiver answers: what a site does on a webhook. */
  onReceive?: (request: Received) => Promise<void>;
  /** Secrets to verify with; each request records one verdict per secret. */
  secrets: string[];
  /** How to answer the next requests (one entry per request); afterwards `fallback`. */
  replies: Reply[];
  fallback: Reply;
  /** Resolves when `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hooks/folio'): Promise<Receiver> {
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const sockets = new Set<import('node:net').Socket>();
  // Answers still held back (delayMs): cleared on close so a long hold cannot keep the test alive.
  const held = new Set<NodeJS.Timeout>();
  const receiver: Receiver = {
    url: '',
    received: [],
    secrets: [],
    replies: [],
    fallback: { status: 204 },
    async waitFor(count, timeoutMs = 10_000) {
      if (receiver.received.length < count) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new Error(`receiver got ${receiver.received.length} of ${count} requests`)),
            timeoutMs,
          );
          waiters.push({
            count,
            resolve: () => {
              clearTimeout(timer);
              resolve();
            },
          });
        });
      }
      return receiver.received;
    },
    close: () =>
      new Promise((resolve) => {
        for (const timer of held) clearTimeout(timer);
        held.clear();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = request.headers;
      const verified = receiver.secrets.map((secret) => {
        try {
          new Webhook(secret).verify(body, headers as Record<string, string>);
          return true;
        } catch {
          return false;
        }
      });
      const received: Received = { headers, body, json: JSON.parse(body), verified, at: Date.now() };
      await receiver.onReceive?.(received);
      receiver.received.push(received);
      for (const waiter of waiters.filter((w) => receiver.received.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      const reply = receiver.replies.shift() ?? receiver.fallback;
      const timer = setTimeout(() => {
        held.delete(timer);
        if (response.destroyed) return;
        response.writeHead(reply.status, reply.headers ?? {});
        response.end(reply.body ?? '');
      }, reply.delayMs ?? 0);
      held.add(timer);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return receiver;
}
