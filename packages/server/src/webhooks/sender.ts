import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedTarget } from './address-guard.ts';
import { type AttemptFailure, transportFailure } from './attempt-failure.ts';

/** What is kept of a receiver's answer. */
export const MAX_RESPONSE_BODY_BYTES = 4096;

export interface SendResult {
  /** Set when the receiver answered; any 2xx is success. */
  statusCode?: number;
  retryAfter?: string;
  /** At most MAX_RESPONSE_BODY_BYTES of the answer. */
  body: string;
  /** Set when no answer arrived: timeout, refused connection, TLS failure. */
  error?: string;
  /** Which kind of failure `error` is, for the metrics. */
  failure?: AttemptFailure;
  durationMs: number;
}

/**
 * POSTs one delivery. The socket connects to the address the guard checked, redirects are not
 * followed (a 3xx is just a failed attempt), and the whole exchange is bounded by `timeoutMs`.
 * `attemptTimeoutMs` is the attempt's whole budget, named in the error: `timeoutMs` is what is
 * left of it after the DNS lookup.
 */
export function postWebhook(
  target: ResolvedTarget,
  payload: string,
  headers: Record<string, string>,
  timeoutMs: number,
  attemptTimeoutMs = timeoutMs,
): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };

  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: elapsed() });
    };
    const client = target.url.protocol === 'https:' ? https : http;
    const request = client.request(target.url, {
      method: 'POST',
      agent: false,
      lookup: pinned,
      headers: { ...headers, 'content-length': String(Buffer.byteLength(payload)) },
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      request.destroy(new Error(`timed out after ${attemptTimeoutMs} ms`));
    }, timeoutMs);

    request.on('error', (error) =>
      finish({ error: describeError(error), failure: transportFailure(error, timedOut), body: '' }),
    );
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () =>
        finish({
          statusCode: response.statusCode,
          retryAfter: headerValue(response.headers['retry-after']),
          body: storableText(Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BODY_BYTES)),
        });
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        // Enough is kept for the log; the rest of a large answer is not worth reading.
        if (size >= MAX_RESPONSE_BODY_BYTES) {
          done();
          response.destroy();
        }
      });
      response.on('end', done);
      response.on('error', done);
    });
    request.end(payload);
  });
}

/**
 * A receiver's answer as text the delivery log can keep: PostgreSQL's text refuses U+0000, so an
 * answer holding one could never be recorded, and its delivery would be sent again forever.
 */
function storableText(bytes: Buffer): string {
  return bytes.toString('utf8').replaceAll('\u0000', '\ufffd');
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function describeError(error: Error & { code?: string }): string {
  if (error.message.startsWith('timed out')) return error.message;
  return error.code ? `${error.code}: ${error.message}` : error.message;
}
