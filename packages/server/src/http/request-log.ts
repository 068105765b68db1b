import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

/**
 * What an operator reads of each request: one line, written once its answer is done, holding all
 * that is needed to find a slow or failing request without joining lines (method, route
 * template, path, status, duration, request id). The request id is echoed in `x-request-id`, so
 * a client reporting a problem can quote it.
 */

/** The header a request's id is echoed in, and taken from behind a trusted proxy. */
export const REQUEST_ID_HEADER = 'x-request-id';

// Long enough to show which page of which article, short enough that a flood of long 404 paths
// does not cost a log line its length each.
const MAX_LOGGED_PATH = 200;
// An id a proxy sends is reused only if it reads as one: it is written into every line and
// echoed to the client.
const FORWARDED_ID = /^[!-~]{1,64}$/;
// Credentials Folio issues, wherever a client put them (a path segment, percent-encoded or not):
// the log must never hold one.
const CREDENTIAL = /folio(?:_|%5f)(admin|ck|pk|pt)(?:_|%5f)[^/?#]*/gi;

// pino's levels by name; a logger turned off is `silent`.
const LEVELS: Record<'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent', number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Number.POSITIVE_INFINITY,
};

/** Level and message of a line that is not a plain answer: a 5xx, or an answer told elsewhere. */
interface Outcome {
  level: 'info' | 'warn' | 'error';
  msg: string;
  err?: unknown;
}

const outcomes = new WeakMap<FastifyRequest, Outcome>();

/**
 * How `request`'s line is to read: its level, its message and the error, if any. The first
 * description stands: a route that already reported a failure in a line of its own (an outage,
 * once) keeps its answer's line quiet whatever the error handler would say.
 */
export function describeAnswer(
  request: FastifyRequest,
  level: Outcome['level'],
  msg: string,
  err?: unknown,
): void {
  if (!outcomes.has(request)) outcomes.set(request, err === undefined ? { level, msg } : { level, msg, err });
}

/**
 * Request ids: unique across processes and restarts (a random prefix per process), cheap per
 * request (a counter after it), and the trusted proxy's own when it sends a usable one.
 */
export function createRequestIds(trustProxy: boolean): (request: IncomingMessage) => string {
  const prefix = randomBytes(6).toString('base64url');
  let count = 0;
  return (request) => {
    if (trustProxy) {
      const sent = request.headers[REQUEST_ID_HEADER];
      if (typeof sent === 'string' && FORWARDED_ID.test(sent)) return sent;
    }
    count++;
    return `${prefix}-${count.toString(36)}`;
  };
}

/**
 * The path of `url` fit for a log line: without its query (it may hold a preview token or a
 * search), with any Folio credential in it redacted, and cut to a bounded length.
 */
export function loggedPath(url: string): string {
  const query = url.indexOf('?');
  let path = query === -1 ? url : url.slice(0, query);
  // The router decodes a path once, so `%66olio_ck_…` is the same key: looked for decoded, and
  // then logged decoded (byte by byte), with the key left out.
  if (path.includes('%')) {
    const decoded = decodedOrNot(path);
    if (decoded.replace(CREDENTIAL, '') !== decoded) path = decoded;
  }
  path = path.replace(CREDENTIAL, 'folio_$1_(redacted)');
  return path.length > MAX_LOGGED_PATH ? `${path.slice(0, MAX_LOGGED_PATH)}…` : path;
}

// Each escape decoded to the byte it stands for: a broken one elsewhere in the path must not
// keep a key in it hidden from the pattern.
function decodedOrNot(path: string): string {
  return path.replace(/%[0-9a-f]{2}/gi, (escaped) =>
    String.fromCharCode(Number.parseInt(escaped.slice(1), 16)),
  );
}

/**
 * What every request line holds, on either path. `remoteAddress` is the client's, the first
 * `X-Forwarded-For` hop behind a trusted proxy: who sent a flood is what an operator asks first.
 */
export function answerFields(
  method: string,
  route: string,
  url: string,
  status: number,
  ms: number,
  remoteAddress: string,
): Record<string, unknown> {
  return { method, route, path: loggedPath(url), status, ms: Math.round(ms * 100) / 100, remoteAddress };
}

/**
 * Fastify's own request lines replaced by one per answer: its "incoming request" line is
 * dropped, and its "request completed" line (status and time only, to be joined with the
 * first by id) becomes the line above. Its other lines (a stream that failed mid-answer) stay.
 */
export class RequestLines extends LogController {
  readonly #route: (request: FastifyRequest) => string;

  constructor(route: (request: FastifyRequest) => string) {
    super();
    this.#route = route;
  }

  override incomingRequest(): void {}

  // A reader that went away mid-stream has its own line (`left`), with what it was asking for.
  override streamError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE')
      super.streamError(error, request, reply);
  }

  /** The line of a request whose reader left before its answer was complete. */
  left(request: FastifyRequest, reply: FastifyReply, status: number): void {
    const fields = answerFields(
      request.method,
      this.#route(request),
      request.url,
      status,
      reply.elapsedTime,
      request.ip,
    );
    // What had been sent when it left, if anything.
    const sent = reply.raw.headersSent ? reply.raw.statusCode : null;
    reply.log.info({ ...fields, sent }, 'reader left before the answer was complete');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    this.write(request, reply, reply.elapsedTime, error);
  }

  /** The line of an answer, also for those Fastify gives no `requestCompleted` (see `app.ts`). */
  write(request: FastifyRequest, reply: FastifyReply, ms: number, error?: Error | null): void {
    const outcome = outcomes.get(request);
    const level = error || (!outcome && reply.statusCode >= 500) ? 'error' : (outcome?.level ?? 'info');
    // Below the log's level (a server at warn), a line is not even made: it is a share of a
    // small answer's cost.
    if (LEVELS[level] < (LEVELS[reply.log.level as keyof typeof LEVELS] ?? 0)) return;
    const fields = answerFields(
      request.method,
      this.#route(request),
      request.url,
      reply.statusCode,
      ms,
      request.ip,
    );
    if (error) reply.log.error({ ...fields, err: error }, 'request answer failed');
    else if (outcome)
      reply.log[level](outcome.err === undefined ? fields : { ...fields, err: outcome.err }, outcome.msg);
    else reply.log[level](fields, 'request answered');
  }
}
