import fs from 'node:fs';
import http from 'node:http';
import v8 from 'node:v8';
import pg from 'pg';
import { compress } from '../packages/server/src/http/compression.ts';

/**
 * The runtime's limit: a bare `node:http` server answering pre-built bytes. Run as a child:
 * `bare-server.ts <responses file> <port>`, where the file is a v8-serialized
 * `CapturedResponse[]` taken from Folio. Answers 304 when `If-None-Match` is the ETag, with the
 * headers a 304 must repeat (RFC 9110 15.4.5: ETag, Cache-Control, Vary), as Folio does.
 *
 * Like Folio's fast path, it answers the requests that arrived in one turn of the event loop
 * together, in the check phase (`setImmediate`): a server answering each request as it is parsed
 * costs node:http markedly more CPU per answer, and is no limit for one that batches (BENCHMARKS.md,
 * "Delivery"). For the same reason it takes the option Folio's server takes, `optimizeEmptyRequests`.
 */

/**
 * What a primed bare server does before it listens: the kinds of I/O a server's process does
 * besides answering HTTP. Node's event and stream code (`emit`, `_addListener`, the socket write
 * path) is shared by all of them, and V8's inline caches in it see every kind of object that
 * passed through (BENCHMARKS.md, How the delivery path works, "Why the process matters"). A
 * primed bare server measures that share of a server's cost, which no code on the answer's path
 * can remove; the clean bare server stays the limit every row is given against.
 */
export interface Priming {
  /** Brotli compressions of its answers, by Folio's own compression call. */
  compressions: number;
  /** PostgreSQL only: queries through a pool kept open, then one a second, as a server's scheduler polls. */
  postgres?: { databaseUrl: string; queries: number };
}

/** One response captured from Folio, answered again byte for byte. */
export interface CapturedResponse {
  path: string;
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

if (import.meta.main) {
  const [file, port, priming] = process.argv.slice(2);
  const captured = v8.deserialize(fs.readFileSync(file!)) as CapturedResponse[];
  if (priming) await prime(JSON.parse(priming) as Priming, captured);
  const byPath = new Map(
    captured.map((r) => [
      r.path,
      {
        ...r,
        body: Buffer.from(r.body),
        headers: headersFor(r),
        notModifiedHeaders: notModifiedHeadersFor(r),
      },
    ]),
  );
  let waiting: Array<[http.IncomingMessage, http.ServerResponse]> = [];
  const answerWaiting = () => {
    const batch = waiting;
    waiting = [];
    for (const [request, response] of batch) answer(request, response);
  };
  const answer = (request: http.IncomingMessage, response: http.ServerResponse) => {
    const found = byPath.get(request.url!);
    if (!found) {
      response.writeHead(404).end();
      return;
    }
    if (found.headers.etag !== undefined && request.headers['if-none-match'] === found.headers.etag) {
      response.writeHead(304, found.notModifiedHeaders);
      response.end();
      return;
    }
    response.writeHead(found.status, found.headers);
    response.end(found.body);
  };
  const server = http.createServer({ optimizeEmptyRequests: true }, (request, response) => {
    if (waiting.push([request, response]) === 1) setImmediate(answerWaiting);
  });
  server.keepAliveTimeout = 60_000;
  server.listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

async function prime(priming: Priming, captured: CapturedResponse[]): Promise<void> {
  for (let i = 0; i < priming.compressions; i++) {
    await compress(Buffer.from(captured[i % captured.length]!.body), 'br');
  }
  if (!priming.postgres) return;
  const { databaseUrl, queries } = priming.postgres;
  // Kept open, as a server's pool is: its idle sockets stay, and so does the poll.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4, idleTimeoutMillis: 0 });
  await Promise.all(Array.from({ length: queries }, (_, i) => pool.query('select $1::int as n', [i])));
  setInterval(() => void pool.query('select 1').catch(() => {}), 1000).unref();
}

function headersFor(response: CapturedResponse): Record<string, string> {
  return { ...response.headers, 'content-length': String(response.body.byteLength) };
}

function notModifiedHeadersFor(response: CapturedResponse): Record<string, string> {
  const { etag, 'cache-control': cacheControl, vary } = response.headers;
  return {
    ...(etag !== undefined ? { etag } : {}),
    ...(cacheControl !== undefined ? { 'cache-control': cacheControl } : {}),
    ...(vary !== undefined ? { vary } : {}),
  };
}
