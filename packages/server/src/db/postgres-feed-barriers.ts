import { setTimeout as delay } from 'node:timers/promises';
import { withPatience } from './patience.ts';
import { ackMessages } from './postgres-feed-messages.ts';

/** A serving process with a live lease, and how long that lease still runs. */
export interface LiveProcess {
  id: string;
  ms: number;
}

/**
 * A writer's side of the barriers: `settle()` notifies a barrier, then waits until every serving
 * process listed in `folio_instances` acknowledges it, or until its lease runs out. An
 * acknowledgement means that process has taken in every commit before the barrier.
 */
export interface Barriers {
  settle(): Promise<void>;
  /** Process `from` acknowledged this process's barrier. */
  acknowledged(from: string, barrier: number): void;
  /**
   * This process lost its listening connection: it trusts no token, and the next one it trusts
   * follows a new LISTEN, so its own barriers need no notification back.
   */
  settleOwn(): void;
}

export interface BarrierOptions {
  /** This process's id in `folio_instances` and on the channel. */
  id: string;
  leaseMs: number;
  /** Notifies barrier `barrier` and answers which processes hold a lease. */
  send(barrier: number): Promise<LiveProcess[]>;
  /** Whether this process's listening connection is up, so its own barrier will come back. */
  listening(): boolean;
  warn(message: string): void;
}

interface AckWait {
  pending: Set<string>;
  done(): void;
}

export function createBarriers(options: BarrierOptions): Barriers {
  const { id, leaseMs } = options;
  let count = 0;
  // Acknowledgements that came before the barrier's own query answered which processes to wait for.
  const earlyAcks = new Map<number, Set<string>>();
  const waits = new Map<number, AckWait>();
  let waiters: Array<() => void> = [];
  let scheduled = false;

  function acknowledged(from: string, barrier: number): void {
    const wait = waits.get(barrier);
    if (!wait) {
      earlyAcks.get(barrier)?.add(from);
      return;
    }
    wait.pending.delete(from);
    if (wait.pending.size === 0) wait.done();
  }

  // Barriers do not wait for each other: each is acknowledged on its own, since two sent at once
  // may commit in either order.
  async function sendBarrier(): Promise<void> {
    scheduled = false;
    const resolved = waiters;
    waiters = [];
    const barrier = ++count;
    const early = new Set<string>();
    earlyAcks.set(barrier, early);
    let acks: Promise<void>;
    try {
      // A connection lost under the barrier (a failover) is common enough to try once more
      // before waiting out every lease: a second barrier is as good as the first.
      const live = await options.send(barrier).catch(() => options.send(barrier));
      const self = options.listening() ? undefined : id;
      acks = awaitAcks(
        barrier,
        live.filter((process) => !early.has(process.id) && process.id !== self),
      );
    } catch (error) {
      // Every lease that could still be trusted runs out within one lease.
      options.warn(`change feed: the barrier failed (${(error as Error).message}); waiting out the leases`);
      acks = delay(leaseMs);
    }
    earlyAcks.delete(barrier);
    await acks;
    for (const resolve of resolved) resolve();
  }

  function awaitAcks(barrier: number, waiting: LiveProcess[]): Promise<void> {
    if (waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const wait: AckWait = {
        pending: new Set(waiting.map((process) => process.id)),
        done: () => {
          clearTimeout(timer);
          waits.delete(barrier);
          resolve();
        },
      };
      // Until the last of their leases runs out, at the latest.
      const timer = setTimeout(wait.done, Math.max(...waiting.map((process) => process.ms)));
      waits.set(barrier, wait);
    });
  }

  return {
    settle() {
      return new Promise((resolve) => {
        waiters.push(resolve);
        if (scheduled) return;
        scheduled = true;
        // The writers of one turn share a barrier.
        // In a patience scope of its own: the writers it serves have spent theirs on the write.
        setImmediate(() => void withPatience(sendBarrier));
      });
    },
    acknowledged,
    settleOwn() {
      for (const barrier of [...waits.keys()]) acknowledged(id, barrier);
    },
  };
}

/**
 * A serving process's side: every barrier taken in during one turn is acknowledged in one
 * notification (a few, past the payload limit), sent through `notify`.
 */
export function createAcknowledger(
  id: string,
  notify: (payload: string) => void,
): (writer: string, barrier: number) => void {
  let queued: Array<{ writer: string; barrier: number }> = [];
  let scheduled = false;
  return (writer, barrier) => {
    queued.push({ writer, barrier });
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      const acks = queued;
      queued = [];
      for (const payload of ackMessages(id, acks)) notify(payload);
    });
  };
}
