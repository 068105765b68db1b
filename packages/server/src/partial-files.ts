import fs from 'node:fs';

const STOPPING_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

// Files being written beside their final name (`<name>.partial-<pid>`), renamed at the end.
const partials = new Set<string>();

/**
 * Marks `file` as half-written until the returned function is called: if SIGINT, SIGTERM or
 * SIGHUP stops the process first (Ctrl-C on `folio export --out`, `folio backup`, a launcher
 * gone), it is removed, and the signal then ends the process as it would have, so the shell
 * still sees it. For commands only: a server's own SIGTERM handler shuts it down gracefully, and
 * these handlers would end it at once.
 */
export function whilePartial(file: string): () => void {
  if (partials.size === 0) for (const signal of STOPPING_SIGNALS) process.on(signal, removeAndStop);
  partials.add(file);
  return () => {
    partials.delete(file);
    if (partials.size === 0) stopListening();
  };
}

function removeAndStop(signal: NodeJS.Signals): void {
  for (const file of partials) fs.rmSync(file, { force: true });
  partials.clear();
  stopListening();
  process.kill(process.pid, signal);
}

function stopListening(): void {
  for (const signal of STOPPING_SIGNALS) process.removeListener(signal, removeAndStop);
}
