import v8 from 'node:v8';
import type { FastifyReply } from 'fastify';
import { AppError } from '../errors.ts';

/**
 * How many answers a server makes at once. An answer read from the database holds, while it is
 * made and sent, a run of articles, the text made of it, a chunk the reader has not taken yet
 * and what is kept for the response cache: megabytes for a page of large articles. Each page
 * size is a page of its own, so one key holder asking for many at once, read slowly, took a
 * server past its heap. Each answer made takes a slot from before its first read until its
 * last byte went to the socket or its reader left; past the slots, requests wait their turn,
 * and one that waited `patienceMs` is answered 503 with `Retry-After`. Answers that are ready
 * (the response cache, the fast path) take none.
 */
export interface AnswerSlots {
  /**
   * Resolves once this reply holds a slot, at once if it already does; throws `unavailable` when
   * none came free in time. The slot is given back when the reply closes.
   */
  hold(reply: FastifyReply): Promise<void>;
  /** Slots held now and requests waiting for one. */
  use(): { held: number; waiting: number };
}

export interface AnswerSlotsOptions {
  slots: number;
  patienceMs: number;
}

// The heap one answer may take at its largest: a run of stored articles (`RUN_BYTES`) and the
// text made of it, a preview's run parsed, a chunk in the socket and one ready behind it, the
// first megabyte held to tell a whole answer from a stream, and up to 8 MiB kept for the cache.
const HEAP_PER_SLOT = 32 * 1024 * 1024;
// Fewer would queue ordinary cache misses behind each other on a small heap; more than this
// many answers at once gain nothing on the cores a server has and only add to its memory.
const MIN_SLOTS = 4;
const MAX_SLOTS = 64;
// Long enough to ride out a burst of misses after a publish, well under a proxy's read timeout.
const PATIENCE_MS = 10_000;
const RETRY_AFTER_SECONDS = 1;

/** The slots for this process's heap limit (`--max-old-space-size`). */
export function defaultAnswerSlots(heapLimit = v8.getHeapStatistics().heap_size_limit): AnswerSlotsOptions {
  const slots = Math.min(MAX_SLOTS, Math.max(MIN_SLOTS, Math.floor(heapLimit / HEAP_PER_SLOT)));
  return { slots, patienceMs: PATIENCE_MS };
}

/** Whether `error` turned a request away for want of a turn (see `createAnswerSlots`). */
export function isTurnedAway(error: unknown): boolean {
  return error instanceof Error && turnedAway.has(error);
}
const turnedAway = new WeakSet<Error>();

/** `told` hears of each request turned away, to be counted where the log groups them. */
export function createAnswerSlots(options: AnswerSlotsOptions, told?: () => void): AnswerSlots {
  let held = 0;
  // Waiters in arrival order; a slot given back goes to the first, without being counted free.
  // All wait equally long, so the first is also the first out of patience: one timer, for it,
  // rather than one per waiter, which a line of misses under load would set and clear each time.
  const waiting: Waiter[] = [];
  let timer: NodeJS.Timeout | undefined;
  const holders = new WeakSet<FastifyReply>();

  function giveBack(): void {
    const next = waiting.shift();
    if (next) {
      lineChanged();
      next.turn();
    } else held--;
  }

  function watchPatience(): void {
    if (timer !== undefined || waiting.length === 0) return;
    timer = setTimeout(() => {
      timer = undefined;
      const now = performance.now();
      while (waiting.length > 0 && waiting[0]!.until <= now) {
        told?.();
        waiting.shift()!.drop(busy());
      }
      watchPatience();
    }, waiting[0]!.until - performance.now());
  }

  function leaveLine(waiter: Waiter): void {
    const at = waiting.indexOf(waiter);
    if (at >= 0) waiting.splice(at, 1);
    lineChanged();
  }

  // An empty line leaves no timer behind to hold the process open.
  function lineChanged(): void {
    if (waiting.length > 0 || timer === undefined) return;
    clearTimeout(timer);
    timer = undefined;
  }

  return {
    use: () => ({ held, waiting: waiting.length }),
    async hold(reply) {
      if (holders.has(reply)) return;
      // Gone already: its close, which gives a slot back, will not come again.
      if (reply.raw.closed) throw readerLeft();
      holders.add(reply);
      let holding = false;
      let waiter: Waiter | undefined;
      // Listened for before any wait: a reader that leaves in line gives up its place, one that
      // leaves while its answer is made or sent gives back the slot.
      reply.raw.once('close', () => {
        if (holding) giveBack();
        else if (waiter) {
          leaveLine(waiter);
          waiter.drop(readerLeft());
        }
      });
      if (held < options.slots) {
        held++;
        holding = true;
        return;
      }
      await new Promise<void>((resolve, reject) => {
        waiter = {
          until: performance.now() + options.patienceMs,
          turn: () => {
            holding = true;
            resolve();
          },
          drop: reject,
        };
        waiting.push(waiter);
        watchPatience();
      });
    },
  };
}

interface Waiter {
  /** When its patience runs out, on `performance.now()`'s clock. */
  until: number;
  turn: () => void;
  drop: (error: AppError) => void;
}

function readerLeft(): AppError {
  return new AppError('unavailable', 'The reader left before its answer was made.');
}

function busy(): AppError {
  const error = new AppError(
    'unavailable',
    'The server is making as many answers as it can at once; retry shortly.',
    undefined,
    { retryAfterSeconds: RETRY_AFTER_SECONDS },
  );
  turnedAway.add(error);
  return error;
}
