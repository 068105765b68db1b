/**
 * Failures of work that retries by itself (a poll, a reconnect), reported once per streak
 * instead of once per try: while the database is away, each try fails the same way, and a line
 * per try would bury the log for as long as the outage lasts. A streak is reported when it
 * starts, reminded of now and then while it lasts, and reported again when it ends.
 */
export interface FailureStreak {
  failed(error: unknown): void;
  succeeded(): void;
}

export interface StreakReports {
  /** The failure that starts a streak (`tries` 1), then one every `remindEveryMs` while it lasts. */
  failing(error: unknown, tries: number): void;
  /** The streak ended after `tries` failed tries. */
  recovered?(tries: number): void;
}

const REMIND_EVERY_MS = 60_000;

export function createFailureStreak(
  reports: StreakReports,
  options: { remindEveryMs?: number; now?: () => number } = {},
): FailureStreak {
  // The reminders are spaced by elapsed time: on the wall clock, one stepped back an hour (NTP, a
  // restored VM) silenced an outage's reminders for that hour.
  const { remindEveryMs = REMIND_EVERY_MS, now = () => performance.now() } = options;
  let tries = 0;
  let reportedAt = 0;
  return {
    failed(error) {
      tries++;
      if (tries > 1 && now() - reportedAt < remindEveryMs) return;
      reportedAt = now();
      reports.failing(error, tries);
    },
    succeeded() {
      if (tries === 0) return;
      const failed = tries;
      tries = 0;
      reports.recovered?.(failed);
    },
  };
}
