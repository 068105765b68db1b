import { createHash } from 'node:crypto';
import { DEFAULT_CHANGES_RETENTION_MS } from '../config.ts';
import type { ProjectRow } from '../db/tables.ts';
import { AppError } from '../errors.ts';
import * as articles from '../store/articles.ts';
import {
  type ChangeRow,
  listChangesAfter,
  listPreviewChangesAfter,
  pruneTombstones,
} from '../store/changes.ts';
import { findProject } from '../store/projects.ts';
import { toPreviewArticle } from './article-view.ts';
import { type DataJson, servedOfRun } from './delivery.ts';
import type { ServiceDeps } from './deps.ts';
import { inRuns, jsonArray } from './json-runs.ts';
import { inBatches } from './retention.ts';

/**
 * The changes feed (contract, Part 2). Every write a content key can see takes the project's
 * next change number under the project's write lock, so numbers follow commit order: a reader
 * that sees number n committed has seen every number below it (`store/changes.ts`). A cursor
 * is the last number a replica applied; the next page is what is numbered above it.
 */

// As in Part 1, a larger limit is capped.
const MAX_LIMIT = 100;
// A cursor's issue time is rounded down to this share of the retention (at most a minute): an
// unchanged project hands back the very cursor it was asked with, so polling it is a cache hit.
// The rounding makes a cursor look older than it is, so it expires up to one share early: a
// thousandth of the retention, not a sixteenth, keeps that within the contract's "the age of
// the cursor decides" for any retention, from 2s to 30d.
const BUCKETS_PER_RETENTION = 1000;
const MAX_BUCKET_MS = 60_000;

export interface Cursor {
  /** Every change numbered this or lower is in the replica. */
  seq: number;
  /** During a first sync: the project's last number when it began. No replica held what the
   * deletes numbered up to it remove, so they are left out. 0 afterwards. */
  skipDeletesUpTo: number;
  /** When the sync this cursor continues began, rounded down to `bucketMs`; its age decides 410. */
  issuedAt: number;
  bucketMs: number;
  /** The history of changes it is a position in (`change-history.ts`); none in older cursors. */
  history?: string;
}

export interface ChangesQuery {
  since?: string | undefined;
  limit: number;
}

/** The rounding of issue times for a retention. */
export function cursorBucketMs(retentionMs: number): number {
  return Math.max(1, Math.min(MAX_BUCKET_MS, Math.floor(retentionMs / BUCKETS_PER_RETENTION)));
}

/** Which perspective a cursor was issued in: a content key's (`c`) or a preview key's (`p`). */
export type CursorPerspective = 'c' | 'p';

/**
 * A cursor's text:
 * `<perspective>3.<seq>.<skipDeletesUpTo>.<issuedAt>.<bucketMs>.<history>.<check>`, in base64url.
 * The check covers the project too, so a cursor handed to another project's feed (a site
 * switched to another project, or to another Folio) is refused rather than read as a position
 * in a history it is not from. Version 2 is the same without the history.
 */
export function encodeCursor(cursor: Cursor, perspective: CursorPerspective, projectId: string): string {
  const fields = `${cursor.seq}.${cursor.skipDeletesUpTo}.${cursor.issuedAt}.${cursor.bucketMs}`;
  const body =
    cursor.history === undefined
      ? `${perspective}2.${fields}`
      : `${perspective}3.${fields}.${cursor.history}`;
  return Buffer.from(`${body}.${checkOf(`${projectId}\n${body}`)}`).toString('base64url');
}

// A check of the cursor's text and project: base64 forgives trailing characters, so a cursor
// cut, extended or retyped could otherwise read as another, valid one. Not a signature: a
// cursor only ever moves its own replica.
const checkOf = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 6);

/** The cursor `text` stands for on `projectId`'s feed; undefined when it is not one it issued. */
export function decodeCursor(
  text: string,
  perspective: CursorPerspective,
  projectId: string,
): Cursor | undefined {
  if (!/^[A-Za-z0-9_-]{1,120}$/.test(text)) return undefined;
  const match =
    /^(([cp])([123])\.(\d{1,15})\.(\d{1,15})\.(\d{1,15})\.(\d{1,10})(?:\.([A-Za-z0-9_-]{8}))?)(?:\.([A-Za-z0-9_-]{6}))?$/.exec(
      Buffer.from(text, 'base64url').toString('latin1'),
    );
  if (!match || match[2] !== perspective) return undefined;
  const [seq, skipDeletesUpTo, issuedAt, bucketMs] = match.slice(4, 8).map(Number) as [
    number,
    number,
    number,
    number,
  ];
  if (bucketMs < 1) return undefined;
  const [body, version, history, check] = [match[1]!, match[3], match[8], match[9]];
  // Only version 3 names its history.
  if ((version === '3') !== (history !== undefined)) return undefined;
  const cursor: Cursor = { seq, skipDeletesUpTo, issuedAt, bucketMs, ...(history ? { history } : {}) };
  // A cursor is taken only as the very text it was written as. Older versions are still read,
  // to be answered 410 rather than 400 (`feedPage`): version 2, before cursors named their
  // history; version 1, before the check covered the project, without a check at all (the
  // first cursors) or with one of its own text.
  const expected =
    version !== '1'
      ? encodeCursor(cursor, perspective, projectId)
      : check === undefined
        ? Buffer.from(body).toString('base64url')
        : Buffer.from(`${body}.${checkOf(body)}`).toString('base64url');
  return expected === text ? cursor : undefined;
}

/**
 * Until when an answer to `since` built now is the same bytes (the content version keys the rest):
 * the cursor it hands on carries the current polling bucket, so to the end of that bucket, and
 * no later than the cursor's expiry, from which the answer is a 410. A replica polling with the
 * cursor of its last sync, from an earlier bucket, is thus answered from the cache as one polling
 * within the bucket is. A first sync's page (no `since`) holds the current bucket too, so it is
 * kept as long; an answer to a cursor that cannot be read (a 400) never is.
 */
export function changesFreshUntil(deps: FeedDeps, projectId: string, since: string | undefined): number {
  const now = deps.now();
  const retentionMs = deps.changesRetentionMs ?? DEFAULT_CHANGES_RETENTION_MS;
  const bucketMs = cursorBucketMs(retentionMs);
  const bucketEnd = now - (now % bucketMs) + bucketMs;
  if (since === undefined) return bucketEnd;
  const cursor = decodeCursor(since, 'c', projectId);
  if (!cursor) return now;
  return Math.min(bucketEnd, cursor.issuedAt + retentionMs + 1);
}

type FeedDeps = ServiceDeps & {
  changesRetentionMs?: number | undefined;
  /** This database's history of changes (`change-history.ts`), named in every cursor. */
  changeHistory: string;
};

/** How one perspective's feed reads its changes and writes them as JSON. */
interface FeedSource<R extends { seq: number; bytes: number | null }> {
  perspective: CursorPerspective;
  list(page: { after: number; skipDeletesUpTo: number; limit: number }): Promise<R[]>;
  /**
   * Each row's change as JSON; undefined for one deleted since the page was read. Called a run
   * of rows at a time (`json-runs.ts`).
   */
  render(rows: R[]): Promise<(string | undefined)[]>;
}

/** One page of the feed: `{ changes, cursor, hasMore }`. */
export async function listChanges(
  deps: FeedDeps,
  project: ProjectRow,
  query: ChangesQuery,
): Promise<DataJson> {
  return feedPage(deps, project, query, {
    perspective: 'c',
    list: (page) => listChangesAfter(deps.db, project.id, page),
    render: (rows) => changesJson(deps, project, rows),
  });
}

/**
 * One page of the feed in the preview perspective: every article not deleted, drafts shown,
 * with `status`; deletes only for deleted articles.
 */
export async function listPreviewChanges(
  deps: FeedDeps,
  project: ProjectRow,
  query: ChangesQuery,
): Promise<DataJson> {
  return feedPage(deps, project, query, {
    perspective: 'p',
    list: (page) => listPreviewChangesAfter(deps.db, project.id, page),
    render: async (rows) => {
      const present = rows.filter((row) => row.present === 1).map((row) => row.id);
      const found = new Map(
        (await articles.findArticlesByIds(deps.db, project.id, present)).map((row) => [row.id, row]),
      );
      return rows.map((row) => {
        if (row.present !== 1) return deleteJson(row.id, row.slug ?? '');
        const article = found.get(row.id);
        return article && `{"type":"upsert","article":${JSON.stringify(toPreviewArticle(article, project))}}`;
      });
    },
  });
}

async function feedPage<R extends { seq: number; bytes: number | null }>(
  deps: FeedDeps,
  project: ProjectRow,
  query: ChangesQuery,
  source: FeedSource<R>,
): Promise<DataJson> {
  const retentionMs = deps.changesRetentionMs ?? DEFAULT_CHANGES_RETENTION_MS;
  const now = deps.now();
  const bucketMs = cursorBucketMs(retentionMs);
  const current = now - (now % bucketMs);
  const from = startingCursor(query.since, project, current, bucketMs, source.perspective);
  if (now - from.issuedAt > retentionMs) {
    throw new AppError('cursor_expired');
  }
  if (query.since !== undefined && from.history === undefined) {
    // Written before cursors named their history: whether the database was restored since
    // cannot be told, and a replica that missed changes would never hear of them.
    throw new AppError(
      'cursor_expired',
      'The cursor is from an earlier version of Folio, which cannot tell whether changes were lost since; sync again without it.',
    );
  }
  if (from.history !== undefined && from.history !== deps.changeHistory) {
    throw new AppError(
      'cursor_expired',
      'The cursor is from a history of changes this server no longer has (its database was restored from a backup); sync again without it.',
    );
  }
  if (query.since !== undefined && (await pastLastChange(deps, project, from))) {
    throw new AppError(
      'cursor_expired',
      'The cursor names changes this database does not have (it was restored from a backup); sync again without it.',
    );
  }
  const limit = Math.min(query.limit, MAX_LIMIT);
  const rows = await source.list({
    after: from.seq,
    skipDeletesUpTo: from.skipDeletesUpTo,
    limit: limit + 1,
  });
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  const last = page.at(-1)?.seq ?? from.seq;
  // Mid-sync, the cursor keeps the time the sync began: history older than the retention may
  // be pruned, so a sync is complete only if it finishes within it.
  const history = deps.changeHistory;
  const next: Cursor = hasMore
    ? { ...from, seq: last, history }
    : { seq: Math.max(last, from.skipDeletesUpTo), skipDeletesUpTo: 0, issuedAt: current, bucketMs, history };
  const cursor = encodeCursor(next, source.perspective, project.id);
  return { data: feedJson(source, page, `,"cursor":"${cursor}","hasMore":${hasMore}}`) };
}

async function* feedJson<R extends { seq: number; bytes: number | null }>(
  source: FeedSource<R>,
  page: R[],
  rest: string,
): AsyncGenerator<string> {
  async function* runs() {
    for (const run of inRuns(page)) yield await source.render(run);
  }
  yield '{"changes":';
  yield* jsonArray(runs());
  yield rest;
}

/**
 * Whether `cursor` is past the project's last change: a restore that kept the history's tag (a
 * file-system snapshot, a point-in-time recovery, a copy of a stopped SQLite file) numbers its
 * next changes as the lost ones were, and until it has made as many, a cursor from the lost
 * history points past them. The project row may be older than the cursor (another process
 * handed it out a moment ago), so it is read again before a cursor is refused.
 */
async function pastLastChange(deps: ServiceDeps, project: ProjectRow, cursor: Cursor): Promise<boolean> {
  const reaches = Math.max(cursor.seq, cursor.skipDeletesUpTo);
  if (reaches <= Number(project.change_seq)) return false;
  const current = await findProject(deps.db, project.id);
  return current !== undefined && reaches > Number(current.change_seq);
}

function startingCursor(
  since: string | undefined,
  project: ProjectRow,
  current: number,
  bucketMs: number,
  perspective: CursorPerspective,
): Cursor {
  if (since === undefined) {
    return { seq: 0, skipDeletesUpTo: Number(project.change_seq), issuedAt: current, bucketMs };
  }
  const cursor = decodeCursor(since, perspective, project.id);
  if (!cursor) {
    throw new AppError(
      'invalid_query',
      'The query string is not valid: since is not a cursor of this feed.',
      [{ path: '/since', message: 'is not a cursor of this feed' }],
    );
  }
  return cursor;
}

function deleteJson(id: string, slug: string): string {
  return `{"type":"delete","id":${JSON.stringify(id)},"slug":${JSON.stringify(slug)}}`;
}

/** The changes of a run of the content feed: a delete, or an upsert of the served article. */
async function changesJson(
  deps: ServiceDeps,
  project: ProjectRow,
  rows: ChangeRow[],
): Promise<(string | undefined)[]> {
  const upserts = rows.filter((row) => row.published === 1);
  const served = await servedOfRun(deps, project, upserts);
  const byId = new Map(upserts.map((row, i) => [row.id, served[i]]));
  return rows.map((row) => {
    if (row.published !== 1) return deleteJson(row.id, row.slug ?? '');
    // Deleted since the page was read: its tombstone comes on a later page.
    const article = byId.get(row.id);
    return article && `{"type":"upsert","article":${article}}`;
  });
}

// Tombstones deleted per statement while pruning.
const PRUNE_BATCH = 500;

/** Deletes the feed's history older than the retention, a small batch at a time; returns how much. */
export async function pruneChangeHistory(deps: ServiceDeps, retentionMs: number): Promise<number> {
  const before = deps.now() - retentionMs;
  return inBatches(PRUNE_BATCH, (size) => pruneTombstones(deps.db, before, size));
}
