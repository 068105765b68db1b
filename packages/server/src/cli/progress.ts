import type { CliIo } from './context.ts';

const WIDTH = 30;
// Redrawing more often than this only costs time on big files.
const REDRAW_MS = 80;

export interface Progress {
  update(phase: string, done: number, total: number): void;
  done(): void;
}

/** A one-line progress bar on stderr, only when stderr is a terminal; a no-op otherwise. */
export function createProgress(stderr: CliIo['stderr'], now: () => number = Date.now): Progress {
  if (!stderr.isTTY) return { update() {}, done() {} };
  let last = 0;
  let drawn = false;
  return {
    update(phase, done, total) {
      const time = now();
      if (done < total && time - last < REDRAW_MS) return;
      last = time;
      const filled = total === 0 ? WIDTH : Math.round((done / total) * WIDTH);
      const bar = `${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)}`;
      stderr.write(`\r\x1b[K${phase.padEnd(10)} ${bar} ${done}/${total}`);
      drawn = true;
    },
    done() {
      if (drawn) stderr.write('\r\x1b[K');
      drawn = false;
    },
  };
}
