/** What a process learns of commits made by any process (see `db/postgres-change-feed.ts`). */
export interface ChangeFeed {
  /**
   * A change token known without reading the database: only while every writer is sure to
   * wait for this process to take its commit in. Otherwise undefined: read `changeToken`.
   */
  known(): string | undefined;
  /**
   * Resolves once every serving process answers from data that includes each commit that
   * finished before the call. A write settles before it answers; a webhook before it is sent.
   */
  settle(): Promise<void>;
  close(): Promise<void>;
}

// SQLite: every process reads the file's own change counter before it answers, so a commit is
// seen everywhere the moment it finishes.
export const IMMEDIATE_FEED: ChangeFeed = {
  known: () => undefined,
  settle: () => Promise.resolve(),
  close: () => Promise.resolve(),
};

/** Reads the database's change token: synchronously on SQLite, with one query on PostgreSQL. */
export type ChangeToken = () => string | Promise<string>;
