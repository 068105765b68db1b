import type { DeliveryUpdate } from '../db/tables.ts';
import { type AttemptFailure, REDIRECT_NOT_FOLLOWED, statusFailure } from './attempt-failure.ts';
import { nextRetryDelay, parseRetryAfter } from './retry-schedule.ts';
import type { SendResult } from './sender.ts';

/** What one attempt means for its delivery. */
export interface AttemptOutcome {
  patch: Pick<DeliveryUpdate, 'status' | 'next_attempt_at' | 'last_status_code' | 'last_error'>;
  /** Set when the receiver asked to stop (410 Gone): the webhook is disabled. */
  disableReason?: string;
  /** Why the attempt failed; undefined when it succeeded. */
  failure?: AttemptFailure;
}

const RETRY_AFTER_STATUSES = new Set([429, 503]);

/**
 * Success is any 2xx; 410 Gone ends the delivery and disables the webhook; anything else
 * (a 3xx is not followed, a 4xx/5xx, no answer) is retried on the schedule until it runs out.
 */
export function classifyAttempt(
  result: Pick<SendResult, 'statusCode' | 'retryAfter' | 'error' | 'failure'>,
  context: { attemptsMade: number; now: number; schedule: number[]; random: () => number },
): AttemptOutcome {
  const { statusCode } = result;
  const failure = statusCode === undefined ? (result.failure ?? 'connect') : statusFailure(statusCode);
  const base = {
    last_status_code: statusCode ?? null,
    last_error: result.error ?? statusError(statusCode, failure),
  };
  if (failure === undefined) {
    return { patch: { ...base, status: 'succeeded', next_attempt_at: null } };
  }
  if (statusCode === 410) {
    return {
      patch: { ...base, status: 'failed', next_attempt_at: null },
      disableReason: 'The receiver answered 410 Gone',
      failure,
    };
  }
  const retryAfter =
    statusCode !== undefined && RETRY_AFTER_STATUSES.has(statusCode)
      ? parseRetryAfter(result.retryAfter, context.now)
      : undefined;
  const delay = nextRetryDelay(context.schedule, context.attemptsMade, context.random, retryAfter);
  if (delay === undefined) return { patch: { ...base, status: 'failed', next_attempt_at: null }, failure };
  return { patch: { ...base, status: 'pending', next_attempt_at: context.now + delay }, failure };
}

/** The recorded error of an answer that is not a 2xx; a 3xx says why it was not enough. */
function statusError(statusCode: number | undefined, failure: AttemptFailure | undefined): string | null {
  if (statusCode === undefined || failure === undefined) return null;
  return failure === 'redirect' ? `HTTP ${statusCode} (${REDIRECT_NOT_FOLLOWED})` : `HTTP ${statusCode}`;
}
