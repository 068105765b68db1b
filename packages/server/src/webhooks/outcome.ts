import type { DeliveryUpdate } from '../db/tables.ts';
import { nextRetryDelay, parseRetryAfter } from './retry-schedule.ts';
import type { SendResult } from './sender.ts';

/** What one attempt means for its delivery. */
export interface AttemptOutcome {
  patch: Pick<DeliveryUpdate, 'status' | 'next_attempt_at' | 'last_status_code' | 'last_error'>;
  /** Set when the receiver asked to stop (410 Gone): the webhook is disabled. */
  disableReason?: string;
}

const RETRY_AFTER_STATUSES = new Set([429, 503]);

/**
 * Success is any 2xx; 410 Gone ends the delivery and disables the webhook; anything else
 * (a 3xx is not followed, a 4xx/5xx, no answer) is retried on the schedule until it runs out.
 */
export function classifyAttempt(
  result: Pick<SendResult, 'statusCode' | 'retryAfter' | 'error'>,
  context: { attemptsMade: number; now: number; schedule: number[]; random: () => number },
): AttemptOutcome {
  const { statusCode } = result;
  const lastError =
    result.error ?? (statusCode !== undefined && !isSuccess(statusCode) ? `HTTP ${statusCode}` : null);
  const base = { last_status_code: statusCode ?? null, last_error: lastError };
  if (statusCode !== undefined && isSuccess(statusCode)) {
    return { patch: { ...base, status: 'succeeded', next_attempt_at: null } };
  }
  if (statusCode === 410) {
    return {
      patch: { ...base, status: 'failed', next_attempt_at: null },
      disableReason: 'The receiver answered 410 Gone',
    };
  }
  const retryAfter =
    statusCode !== undefined && RETRY_AFTER_STATUSES.has(statusCode)
      ? parseRetryAfter(result.retryAfter, context.now)
      : undefined;
  const delay = nextRetryDelay(context.schedule, context.attemptsMade, context.random, retryAfter);
  if (delay === undefined) return { patch: { ...base, status: 'failed', next_attempt_at: null } };
  return { patch: { ...base, status: 'pending', next_attempt_at: context.now + delay } };
}

function isSuccess(statusCode: number): boolean {
  return statusCode >= 200 && statusCode < 300;
}
