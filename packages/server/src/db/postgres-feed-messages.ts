/**
 * The messages of the change feed's channel, `folio:<schema>`: one NOTIFY payload each.
 * - `c …` (or anything unknown), from the triggers of migration 0006: content changed.
 * - `b <writer> <n>`: writer's barrier n; every serving process acknowledges it.
 * - `a <process> <writer>:<n> …`: a serving process acknowledges barriers.
 * - `p <process> <n>`: a process's lease renewal n, sent to itself.
 * - `h <process>`: a process's start-up probe, sent to itself.
 */
export type FeedMessage =
  | { kind: 'barrier'; from: string; barrier: number }
  | { kind: 'acks'; from: string; acks: Array<{ writer: string; barrier: number }> }
  | { kind: 'ping'; from: string; ping: number }
  | { kind: 'probe'; from: string }
  | { kind: 'change' };

// Acknowledgements per notification, well inside the 8,000-byte payload limit.
const ACKS_PER_NOTIFICATION = 100;

export function parseFeedMessage(payload: string): FeedMessage {
  const [kind, from, ...rest] = payload.split(' ');
  if (from === undefined) return { kind: 'change' };
  switch (kind) {
    case 'b':
      return { kind: 'barrier', from, barrier: Number(rest[0]) };
    case 'a':
      return {
        kind: 'acks',
        from,
        acks: rest.map((part) => {
          const [writer = '', barrier] = part.split(':');
          return { writer, barrier: Number(barrier) };
        }),
      };
    case 'p':
      return { kind: 'ping', from, ping: Number(rest[0]) };
    case 'h':
      return { kind: 'probe', from };
    default:
      return { kind: 'change' };
  }
}

export function barrierMessage(writer: string, barrier: number): string {
  return `b ${writer} ${barrier}`;
}

/** The acknowledgements of `from`, as few payloads as fit the limit. */
export function ackMessages(from: string, acks: Array<{ writer: string; barrier: number }>): string[] {
  const payloads: string[] = [];
  for (let i = 0; i < acks.length; i += ACKS_PER_NOTIFICATION) {
    const parts = acks
      .slice(i, i + ACKS_PER_NOTIFICATION)
      .map(({ writer, barrier }) => `${writer}:${barrier}`);
    payloads.push(`a ${from} ${parts.join(' ')}`);
  }
  return payloads;
}

export function pingMessage(from: string, ping: number): string {
  return `p ${from} ${ping}`;
}

export function probeMessage(from: string): string {
  return `h ${from}`;
}
