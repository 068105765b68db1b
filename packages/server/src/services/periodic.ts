/** Work that runs now and then, off the request path: pruning history, finishing rewrites. */
export interface Periodic {
  /** Stops the timer; resolves once a run under way has ended. */
  stop(): Promise<void>;
}

/**
 * Runs `work` every `everyMs`, and at once when `atOnce`. One run at a time: a slow database
 * must not pile runs up behind each other.
 */
export function runPeriodically(
  everyMs: number,
  work: () => Promise<unknown>,
  onError: (error: unknown) => void,
  options: { atOnce?: boolean } = {},
): Periodic {
  let running: Promise<void> | undefined;
  const run = () => {
    running ??= work()
      .then(() => {}, onError)
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(run, everyMs);
  timer.unref();
  if (options.atOnce) run();
  return {
    stop: () => {
      clearInterval(timer);
      return running ?? Promise.resolve();
    },
  };
}
