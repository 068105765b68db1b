import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseStorageRefusal, isDatabaseUnavailable } from '../db/errors.ts';
import { AppError, databaseCannotStore, databaseUnavailable } from '../errors.ts';
import { missingAdminToken } from '../services/admin-auth.ts';
import { missingContentKey } from '../services/content-keys.ts';
import { isTurnedAway } from './answer-slots.ts';
import { readBearerToken } from './bearer.ts';
import { PRIVATE_NO_STORE } from './caching.ts';
import { errorBody } from './envelope.ts';
import { describeAnswer, REQUEST_ID_HEADER } from './request-log.ts';
import { describeValidationErrors, MAX_DETAILS, summarizeDetails } from './validation.ts';

/**
 * The one place where failures become HTTP answers in the contract's shape. Expected failures
 * arrive as `AppError`s or Fastify's own client errors; anything else is a bug: logged in full,
 * answered as `500 internal` with no internals in the body.
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const appError = toAppError(error);
    // Said in the request's one line, once it is answered. An operator has to make room; the
    // database being away mends itself.
    if (isDatabaseStorageRefusal(error))
      describeAnswer(request, 'error', 'the database refused to store a change', error);
    else if (appError.code === 'unavailable' && error instanceof AppError)
      // Turned away on purpose (a process closing, too many answers at once): no stack to show.
      // Those turned away for want of a turn are told together (`app.ts`), so a flood of them is
      // no flood of warnings.
      describeAnswer(
        request,
        isTurnedAway(error) ? 'info' : 'warn',
        `request answered 503: ${appError.message}`,
      );
    else if (appError.code === 'unavailable')
      describeAnswer(request, 'warn', 'request needed the database', error);
    else if (appError.status >= 500) describeAnswer(request, 'error', 'request failed', error);
    return sendError(reply, appError);
  });
  // No id or slug can contain U+0000 (and PostgreSQL could not even compare one), so a path
  // holding it names nothing.
  app.addHook('preValidation', async (request) => {
    const params = request.params as Record<string, unknown> | undefined;
    if (
      params &&
      Object.values(params).some((value) => typeof value === 'string' && value.includes('\u0000'))
    ) {
      throw new AppError('not_found', 'No id or slug contains a NUL character.');
    }
  });
  app.setNotFoundHandler(answerNoRoute);
}

/** The 404 of a request no route matches. */
export function answerNoRoute(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  // A HEAD is answered as its GET, with the GET's Content-Length (RFC 9110 9.3.2), so its
  // message names the GET.
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  return sendError(
    reply,
    new AppError('not_found', `No route matches ${method} ${request.url.split('?')[0]}.`),
  );
}

/** For Fastify's `frameworkErrors`: failures found while routing, before any hook runs. */
export function handleFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  // No hook has run to echo the request's id.
  reply.header(REQUEST_ID_HEADER, request.id);
  void sendError(reply, missingCredential(error, request) ?? toAppError(error));
}

// The router's refusals of a path (broken percent-encoding, a segment past its length bound).
const ROUTER_REFUSALS = new Set(['FST_ERR_BAD_URL', 'FST_ERR_MAX_PARAM_LENGTH']);

/**
 * The router refuses a broken path before any hook runs; on the authenticated APIs a request
 * without a token is still told 401 first, as on every other path there (nothing about the
 * path is answered to someone who sent no credential).
 */
function missingCredential(error: FastifyError, request: FastifyRequest): AppError | undefined {
  if (!ROUTER_REFUSALS.has(error.code) || readBearerToken(request.headers.authorization)) return undefined;
  if (request.url.startsWith('/api/v1/')) return missingContentKey();
  if (request.url.startsWith('/admin/v1/')) return missingAdminToken();
  return undefined;
}

/**
 * For Fastify's `clientErrorHandler`: Node's HTTP parser refused the bytes (oversized headers,
 * a malformed request line, an unknown method) before there was a request to route. The answer
 * is written to the socket by hand, in the contract's shape, and the connection is closed since
 * nothing after the bad bytes can be trusted to start a request.
 */
export function handleClientError(
  error: NodeJS.ErrnoException & { rawPacket?: unknown },
  socket: Socket,
  refused?: (status: number, method: string | undefined) => void,
): void {
  // A reset connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const appError = new AppError(clientErrorCode(error.code));
  answerAndClose(socket, appError);
  refused?.(appError.status, sentMethod(error.rawPacket));
}

// Longer than any method Node's parser knows.
const LONGEST_METHOD = 16;

/** The method the refused bytes began with, if the parser kept them. */
function sentMethod(rawPacket: unknown): string | undefined {
  if (!Buffer.isBuffer(rawPacket)) return undefined;
  const start = rawPacket.subarray(0, LONGEST_METHOD + 1).toString('latin1');
  const space = start.indexOf(' ');
  return space > 0 ? start.slice(0, space) : undefined;
}

/** Writes `appError` to the socket by hand, in the contract's shape, and closes the connection. */
export function answerAndClose(socket: Socket, appError: AppError): void {
  if (socket.writable) {
    const body = JSON.stringify(errorBody(appError));
    socket.write(
      `HTTP/1.1 ${appError.status} ${STATUS_CODES[appError.status]}\r\n` +
        'content-type: application/json; charset=utf-8\r\n' +
        'cache-control: no-store\r\n' +
        `content-length: ${Buffer.byteLength(body)}\r\n` +
        'connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy();
}

function clientErrorCode(code: string | undefined): 'request_timeout' | 'headers_too_large' | 'bad_request' {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'request_timeout';
  if (code === 'HPE_HEADER_OVERFLOW') return 'headers_too_large';
  return 'bad_request';
}

export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  // Set for the answer that failed before its first byte (a stream's tag and encoding go out
  // ahead of its body): they describe bytes this answer is not.
  reply.removeHeader('etag');
  reply.removeHeader('content-encoding');
  if (error.code === 'unauthorized') reply.header('www-authenticate', 'Bearer');
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
  // A delivery-API error answers a credential, a preview key's among them (contract, Part 2).
  reply.header('cache-control', reply.request.url.startsWith('/api/') ? PRIVATE_NO_STORE : 'no-store');
  return reply.status(error.status).send(errorBody(error));
}

function toAppError(error: FastifyError): AppError {
  if (error instanceof AppError) return error;
  if (isDatabaseUnavailable(error)) return databaseUnavailable();
  if (isDatabaseStorageRefusal(error)) return databaseCannotStore();
  if (error.validation) {
    const part = error.validationContext ?? 'body';
    const details = describeValidationErrors(
      error.validation as Parameters<typeof describeValidationErrors>[0],
    );
    const code = part === 'body' ? 'invalid_body' : 'invalid_query';
    return new AppError(code, summarizeDetails(part, details), details.slice(0, MAX_DETAILS));
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return new AppError('unsupported_media_type');
    case 'FST_ERR_BAD_URL':
      return new AppError('invalid_query', 'The URL path is not valid percent-encoded UTF-8.');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      // Longer than any id or slug can be, so nothing can live there.
      return new AppError('not_found', 'A path segment is longer than any id or slug, so nothing is there.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('invalid_body', 'The Content-Length header does not match the body.');
  }
  if (error.statusCode === 404) return new AppError('not_found');
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return new AppError('invalid_query', `The request is not valid: ${error.message}`);
  }
  return new AppError('internal');
}
