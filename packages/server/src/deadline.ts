/** The rejection of `withDeadline` when its time ran out (the work's own errors pass as they are). */
export class DeadlineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeadlineError';
  }
}

/**
 * `work`, or a rejection with `message` once `ms` have passed without it. The work itself runs
 * on: this bounds how long a caller waits, not what the work costs.
 * @example
 * await withDeadline(sql`select 1`.execute(db), 2_000, 'the database did not answer in 2 s');
 */
export function withDeadline<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(message)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
