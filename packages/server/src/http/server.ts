import http from 'node:http';
import net, { type Socket } from 'node:net';
import { AppError } from '../errors.ts';
import { answerAndClose } from './error-handler.ts';
import { lingerAfterAnswer } from './lingering-close.ts';
import { memoizeLast } from './memoize.ts';

/** How long a request may take to arrive, and how often Node looks for those past it. */
export interface RequestTimeouts {
  requestMs: number;
  checkEveryMs: number;
}

// Node's defaults for the headers; now the body's too.
const REQUEST_TIMEOUTS: RequestTimeouts = { requestMs: 60_000, checkEveryMs: 30_000 };

// RFC 9112 3.2: a server must answer 400 to an HTTP/1.1 request without one, and to any request
// with more than one or one whose value is no host (RFC 3986 3.2.2, with an optional port).
const MISSING_HOST = 'An HTTP/1.1 request needs a Host header.';
const BAD_HOST = 'A request may carry one Host header, holding a host name or address and an optional port.';
const HOST = /^(?:\[[\w.:~%!$&'()*+,;=-]+\]|[\w.~%!$&'()*+,;=-]*)(?::\d*)?$/;

/**
 * Folio's HTTP server, whose responses and sockets each take one shape whichever path answers.
 *
 * V8 gives an object a hidden class by the properties it has and the order they were added in,
 * and Node's HTTP code (writing a head, ending a response, writing to a socket) is compiled for
 * the classes it has met. Left alone, the two paths make two of each: the framework sets a
 * response's `statusCode` before its `statusMessage` when a route sets a status, a fast answer
 * the other way round; a socket whose client address was read (logs, rate limits) carries
 * `_peername`, one that only took fast answers does not. Once both kinds have passed, that code
 * handles two classes on every answer, fast ones included (BENCHMARKS.md, How the delivery path
 * works, "One shape per object").
 */
export function createHttpServer(
  listener: http.RequestListener,
  timeouts: RequestTimeouts = REQUEST_TIMEOUTS,
  options: {
    drainOnClose?: boolean;
    /** Told of each request answered here, before any router saw it, by status and method. */
    refused?: (status: number, method: string | undefined, unmatched?: boolean) => void;
  } = {},
): http.Server {
  const server = http.createServer(
    {
      // A whole request, body included, has as long as its headers do. Node's own bound is five
      // minutes: a client trickling a body (or sending none after announcing one) held its
      // connection that long before its 408.
      headersTimeout: timeouts.requestMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: timeouts.checkEveryMs,
      ServerResponse: FolioResponse as typeof http.ServerResponse,
      // A request without a body (no Content-Length, no Transfer-Encoding: every read) skips the
      // readable stream's end and close events (BENCHMARKS.md, How the delivery path works, "No
      // stream for a request without a body"). A body parser would wait for them: json-body.ts
      // gives such a request an empty body of its own. Node before 24.12 ignores the option.
      // So a route that must know its client left watches the response's `close`, as Fastify
      // does for a streamed answer: Fastify's `request.signal` and `onRequestAbort` listen on
      // the request and would never fire.
      optimizeEmptyRequests: true,
      // Node's own refusal of an HTTP/1.1 request without a Host header is a bare 400 with no
      // body; Folio refuses it itself, in the contract's shape.
      requireHostHeader: false,
    },
    (request, response) => {
      // Read after an answer that closed the connection: sent behind a refused body, it arrived
      // while that body was drained (lingering-close.ts), and RFC 9112 9.6 forbids serving it.
      if (!request.socket.writable) {
        request.socket.destroy();
        return;
      }
      if (request.headers.host === undefined && request.httpVersion === '1.1') {
        answerAndClose(request.socket, new AppError('bad_request', MISSING_HOST));
        options.refused?.(400, request.method);
        return;
      }
      if (!hasOneValidHost(request)) {
        answerAndClose(request.socket, new AppError('bad_request', BAD_HOST));
        options.refused?.(400, request.method);
        return;
      }
      // Closing: each answer ends its connection (Connection: close), whichever path gives it,
      // so the client goes to another process and the close is not held by a kept-alive socket.
      if (closing) response.shouldKeepAlive = false;
      lingerAfterAnswer(request, response);
      listener(request, response);
    },
  );
  let closing = false;
  const close = server.close.bind(server);
  server.close = (callback) => {
    closing = true;
    // Node's close also cuts the connections idle at that moment, and a client's next request
    // on one then meets a reset. Draining, the server only stops listening: an idle connection
    // ends at its keep-alive timeout, or after answering one more request (Connection: close).
    if (options.drainOnClose) net.Server.prototype.close.call(server, callback);
    else close(callback);
    return server;
  };
  server.on('connection', readPeer);
  // RFC 9110 10.1.1: an expectation other than 100-continue may be refused with 417. Node, left
  // alone, answers that with no body; Folio answers it in the contract's shape.
  server.on('checkExpectation', (request: http.IncomingMessage) => {
    answerAndClose(request.socket, new AppError('expectation_failed'));
    options.refused?.(417, request.method);
  });
  // Node gives a CONNECT (a proxy tunnel) to this event alone and, without a listener, closes
  // the socket unanswered. Folio is no proxy: it answers as it does any method no route has.
  server.on('connect', (request: http.IncomingMessage, socket: Socket) => {
    answerAndClose(socket, new AppError('not_found', `No route matches CONNECT ${request.url}.`));
    options.refused?.(404, 'CONNECT', true);
  });
  return server;
}

// Node constructs a response with its options (high-water mark, body checks) as a second
// argument, which its type declarations leave out.
const NodeResponse = http.ServerResponse as unknown as new (
  request: http.IncomingMessage,
  options?: object,
) => http.ServerResponse;

class FolioResponse extends NodeResponse {
  constructor(request: http.IncomingMessage, options?: object) {
    super(request, options);
    // Both own properties from the start, in one order; Node keeps their defaults on the prototype.
    this.statusCode = 200;
    this.statusMessage = undefined as unknown as string;
  }
}

// Most requests send the Host text the last one sent: compared, not matched again.
const isHost = memoizeLast({ entries: 1_000, chars: 100_000 }, (text) => HOST.test(text));

/** True unless the request has a Host header that is no host, or more than one (Node keeps the first). */
function hasOneValidHost(request: http.IncomingMessage): boolean {
  const host = request.headers.host;
  if (host === undefined) return true;
  if (!isHost(host)) return false;
  const raw = request.rawHeaders;
  let seen = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    // As clients write it, compared before a lower-cased copy is made.
    if (
      name.length === 4 &&
      (name === 'Host' || name === 'host' || name.toLowerCase() === 'host') &&
      ++seen > 1
    )
      return false;
  }
  return true;
}

function readPeer(socket: Socket): void {
  // Reading the address keeps it on the socket (`_peername`), so every socket has it from the start.
  void socket.remoteAddress;
}
