/**
 * Events told at most once per period: the first at once, those that follow within the period
 * together when it ends, counted by kind. A flood is then a line a minute in the log, not a
 * line per request.
 */
export interface GroupedReport<Kind> {
  add(kind: Kind): void;
  stop(): void;
}

export function createGroupedReport<Kind>(
  everyMs: number,
  tell: (counts: ReadonlyMap<Kind, number>, total: number) => void,
): GroupedReport<Kind> {
  const pending = new Map<Kind, number>();
  let timer: NodeJS.Timeout | undefined;
  const report = (): boolean => {
    if (pending.size === 0) return false;
    let total = 0;
    for (const count of pending.values()) total += count;
    tell(pending, total);
    pending.clear();
    return true;
  };
  return {
    add(kind) {
      pending.set(kind, (pending.get(kind) ?? 0) + 1);
      if (timer) return;
      report();
      timer = setInterval(() => {
        if (report()) return;
        clearInterval(timer);
        timer = undefined;
      }, everyMs).unref();
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}
