import type { ContentInput, SchedulePatch, SeoInput } from '@folio/schema';
import type { Kysely, Transaction } from 'kysely';
import { isUniqueViolation } from '../db/errors.ts';
import type { ArticleRow, ArticleUpdate, Database, ProjectRow } from '../db/tables.ts';
import { AppError, notFound } from '../errors.ts';
import * as articles from '../store/articles.ts';
import { lockProject } from '../store/project-lock.ts';
import { draftOf, type SiteSettings, servedJson } from './article-view.ts';
import { stampChange, stampNewArticle, stampPreview } from './change-log.ts';
import { recordEvent } from './events.ts';
import { storedSlug } from './slugs.ts';
import { stableStringify } from './stable-json.ts';

/**
 * The one way an article changes, for the live write, drafts, publishing and schedules alike:
 * what it serves, whether it is published, its draft and its schedule, with the change numbers
 * and webhook events each change calls for, in the caller's transaction.
 */

/** The columns that make up what an article serves; a change to any of them is a real change. */
export type ContentColumns = Pick<ArticleRow, 'slug' | 'title' | 'blocks' | 'seo' | 'related'>;

/** The columns beside the content that a write may set: the draft and the schedule. */
export type SideColumns = Pick<
  ArticleUpdate,
  'draft' | 'draft_slug' | 'draft_updated_at' | 'publish_at' | 'unpublish_at'
>;

/** Ingested content as the article's columns store it; checks what the schema cannot. */
export function contentColumns(input: ContentInput): ContentColumns {
  checkSeo(input.seo);
  return {
    slug: storedSlug(input.slug, '/slug'),
    title: input.title,
    blocks: JSON.stringify(input.blocks),
    seo: JSON.stringify(input.seo ?? {}),
    related: JSON.stringify((input.related ?? []).map((slug, i) => storedSlug(slug, `/related/${i}`))),
  };
}

export function contentDiffers(row: ContentColumns, fields: ContentColumns): boolean {
  return differingPart(row, fields) !== undefined;
}

/** Where `fields` differ from `row`: in the seo alone, elsewhere, or (undefined) nowhere. */
function differingPart(row: ContentColumns, fields: ContentColumns): 'seo' | 'content' | undefined {
  if (row.slug !== fields.slug || row.title !== fields.title || row.related !== fields.related) {
    return 'content';
  }
  if (stableStringify(JSON.parse(row.blocks)) !== stableStringify(JSON.parse(fields.blocks)))
    return 'content';
  return stableStringify(JSON.parse(row.seo)) !== stableStringify(JSON.parse(fields.seo)) ? 'seo' : undefined;
}

export interface Change {
  /** New content to serve; absent keeps what is served. */
  content?: ContentColumns | undefined;
  publish: boolean;
  side?: SideColumns;
  /** When it unpublishes: the slug it was served under before this write, if not its own. */
  servedSlug?: string | undefined;
}

/**
 * Moves `existing` to its new content, state and side columns and records what a receiver must
 * hear: publishing → created, unpublishing → unpublished, a served change while published →
 * updated. Hands back `existing` itself when nothing changes.
 */
export async function applyChange(
  trx: Transaction<Database>,
  site: SiteSettings,
  existing: ArticleRow,
  change: Change,
  now: number,
): Promise<ArticleRow> {
  const { content, publish } = change;
  const part = content === undefined ? undefined : differingPart(existing, content);
  const ingested = part !== undefined;
  // An seo that spells out what its defaults give (the title as its title, the first paragraph
  // as its description) serves the same article: the contract makes such a replace a no-op.
  const changed =
    part === 'content' ||
    (part === 'seo' &&
      content !== undefined &&
      servedJson(existing, site) !== servedJson({ ...existing, seo: content.seo }, site));
  const wasPublished = existing.published === 1;
  const side = differing(existing, change.side ?? {});
  const served = changed || publish !== wasPublished;
  if (!served && !ingested && Object.keys(side).length === 0) return existing;

  // Content that serves the same is kept as ingested, with no new updatedAt and no event.
  const patch: ArticleUpdate = ingested && !changed ? { ...side, ...content } : { ...side };
  if (served) {
    Object.assign(patch, changed ? content : {}, { published: publish ? 1 : 0 });
    if (changed || (publish && !wasPublished)) patch.updated_at = now;
    if (publish && existing.published_at === null) patch.published_at = now;
    Object.assign(
      patch,
      await stampChange(trx, existing, publish, patch.slug ?? existing.slug, change.servedSlug),
    );
    patch.served = servedJson({ ...existing, ...patch } as ArticleRow, site);
  } else if ('draft' in side) {
    Object.assign(patch, await stampPreview(trx, existing.project_id));
  }
  const row = await articles.updateArticle(trx, existing.project_id, existing.id, patch);

  const { project_id: projectId, id } = existing;
  if (publish && !wasPublished) {
    await recordEvent(trx, projectId, 'content.created', { id, slug: row.slug }, now);
  } else if (!publish && wasPublished) {
    await recordEvent(trx, projectId, 'content.unpublished', { id, slug: existing.slug }, now);
  } else if (publish && changed) {
    const previousSlug = existing.slug !== row.slug ? { previousSlug: existing.slug } : {};
    await recordEvent(trx, projectId, 'content.updated', { id, slug: row.slug, ...previousSlug }, now);
  }
  return row;
}

/**
 * A write of `content` to article `id`, the live write's or a draft's: under the project's
 * write lock, with the slug claimed against every other article, given the article as it
 * stands (undefined when it is new).
 */
export async function writeContent<T>(
  trx: Transaction<Database>,
  projectId: string,
  id: string,
  content: ContentColumns,
  write: (site: ProjectRow, existing: ArticleRow | undefined) => Promise<T>,
): Promise<T> {
  return withSlugConflicts(content.slug, async () => {
    const site = await lockProjectIn(trx, projectId);
    await claimSlug(trx, projectId, id, content.slug);
    return write(site, await articles.findArticle(trx, projectId, id));
  });
}

/** Inserts a new article: its content, state, draft columns if any, and schedule. */
export async function insertNewArticle(
  trx: Transaction<Database>,
  site: ProjectRow,
  id: string,
  fields: {
    content: ContentColumns;
    published: boolean;
    draft?: Pick<ArticleRow, 'draft' | 'draft_slug' | 'draft_updated_at'>;
    schedule: Pick<ArticleRow, 'publish_at' | 'unpublish_at'>;
  },
  now: number,
): Promise<ArticleRow> {
  const { content, published } = fields;
  const fresh: ArticleRow = {
    project_id: site.id,
    id,
    ...content,
    published: published ? 1 : 0,
    published_at: published ? now : null,
    updated_at: now,
    created_at: now,
    served: null,
    ...(fields.draft ?? { draft: null, draft_slug: null, draft_updated_at: null }),
    ...fields.schedule,
    ...(await stampNewArticle(trx, site.id, id, published, content.slug)),
  };
  const row = await articles.insertArticle(trx, { ...fresh, served: servedJson(fresh, site) });
  if (published) await recordEvent(trx, site.id, 'content.created', { id, slug: row.slug }, now);
  return row;
}

/** Publishes `row` as `POST …/publish` does: its draft becomes what it serves; publishAt clears. */
export async function publishIn(
  trx: Transaction<Database>,
  site: SiteSettings,
  row: ArticleRow,
  now: number,
): Promise<ArticleRow> {
  const draft = draftOf(row);
  const content = draft && {
    slug: draft.slug,
    title: draft.title,
    blocks: draft.blocks,
    seo: draft.seo,
    related: draft.related,
  };
  const cleared = { draft: null, draft_slug: null, draft_updated_at: null };
  const side: SideColumns = { publish_at: null, ...(draft ? cleared : {}) };
  return applyChange(trx, site, row, { content, publish: true, side }, now);
}

/**
 * Unpublishes `row` as `POST …/unpublish` does; both schedule times clear. `servedSlug` is the
 * slug it was served under before this write, when the write renamed it first.
 */
export async function unpublishIn(
  trx: Transaction<Database>,
  site: SiteSettings,
  row: ArticleRow,
  now: number,
  servedSlug?: string,
): Promise<ArticleRow> {
  const side = { publish_at: null, unpublish_at: null };
  return applyChange(trx, site, row, { publish: false, side, servedSlug }, now);
}

/**
 * Applies the schedule times of `row` that are due at `now`: publish first, then unpublish.
 * `before` is the article as this write found it; for one the write created, `row` itself.
 */
export async function applyDue(
  trx: Transaction<Database>,
  site: SiteSettings,
  row: ArticleRow,
  now: number,
  before: ArticleRow = row,
): Promise<ArticleRow> {
  let current = row;
  if (current.publish_at !== null && current.publish_at <= now) {
    current = await publishIn(trx, site, current, now);
  }
  if (current.unpublish_at !== null && current.unpublish_at <= now) {
    // A slug this write gave it and took away again was never served: the changes feed's delete
    // names the one a replica last read (contract: "the last one it was served under").
    current = await unpublishIn(trx, site, current, now, lastServedSlug(before));
  }
  return current;
}

function lastServedSlug(row: ArticleRow): string | undefined {
  return row.published === 1 ? row.slug : (row.served_slug ?? undefined);
}

/**
 * The schedule after `patch` (each time set, null to clear, absent to keep `current`'s);
 * 400 when it would unpublish before it publishes.
 */
export function scheduleColumns(
  current: Pick<ArticleRow, 'publish_at' | 'unpublish_at'>,
  patch: SchedulePatch,
): Pick<ArticleRow, 'publish_at' | 'unpublish_at'> {
  const publish_at =
    patch.publishAt === undefined ? current.publish_at : parseTime(patch.publishAt, 'publishAt');
  const unpublish_at =
    patch.unpublishAt === undefined ? current.unpublish_at : parseTime(patch.unpublishAt, 'unpublishAt');
  if (publish_at !== null && unpublish_at !== null && unpublish_at < publish_at) {
    const why = 'is earlier than publishAt: an article cannot be unpublished before it is published';
    throw new AppError('invalid_body', `unpublishAt ${why}.`, [{ path: '/unpublishAt', message: why }]);
  }
  return { publish_at, unpublish_at };
}

// The last moment a time of the API's form (a four-digit year) can name. An offset can carry a
// time written in 9999 past it, and such a time, once stored, could not be served.
const LATEST_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

function parseTime(value: string | null, field: string): number | null {
  if (value === null) return null;
  const refuse = (why: string) =>
    new AppError('invalid_body', `${field} ${why}.`, [{ path: `/${field}`, message: why }]);
  const time = Date.parse(value);
  if (Number.isNaN(time)) {
    // The date-time format admits a leap second; JavaScript's clock, like the stored one, has none.
    const leap = /T\d{2}:\d{2}:60/i.test(value);
    if (leap) throw refuse('is a leap second (:60), which cannot be stored: use :59');
    throw refuse('must be an ISO 8601 time with a time zone, such as 2026-11-20T10:00:00.000Z');
  }
  if (time > LATEST_TIME) throw refuse('is after the end of year 9999 (in UTC), the last time one can name');
  return time;
}

// Writers of one project take turns. PostgreSQL runs READ COMMITTED, so without the lock two
// requests could both find an article unpublished and both record content.created, both delete
// it and both answer 204, or both insert one new id and one fail as a slug conflict. The
// scheduler takes it too: a due schedule is read again under it, so it applies once.
export async function lockProjectIn(trx: Transaction<Database>, projectId: string): Promise<ProjectRow> {
  const project = await lockProject(trx, projectId);
  if (!project) throw notFound(`Project "${projectId}"`);
  return project;
}

export async function findArticleOr404(
  db: Kysely<Database>,
  projectId: string,
  id: string,
): Promise<ArticleRow> {
  const row = await articles.findArticle(db, projectId, id);
  if (!row) throw notFound(`Article "${id}"`);
  return row;
}

/**
 * 409 when another article holds `slug`, as its stored slug (published or not) or its draft's:
 * an article's slug in either perspective stays unique. Under the project's write lock.
 */
export async function claimSlug(
  trx: Transaction<Database>,
  projectId: string,
  id: string,
  slug: string,
): Promise<void> {
  const holder = await articles.findSlugHolder(trx, projectId, slug, id);
  if (holder) throw slugTaken(slug, holder);
}

function slugTaken(slug: string, byId?: string): AppError {
  const by = byId ? ` by article "${byId}"` : '';
  return new AppError('conflict', `The slug "${slug}" is already used${by} in this project.`, [
    { path: '/slug', message: 'is already used by another article' },
  ]);
}

// Two writers racing for one slug both pass the lookup; the unique index decides.
export async function withSlugConflicts<T>(slug: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUniqueViolation(error)) throw slugTaken(slug);
    throw error;
  }
}

/** The side columns whose values differ from the row's. */
function differing(row: ArticleRow, side: SideColumns): SideColumns {
  const changed: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(side)) {
    if (row[name as keyof SideColumns] !== value) changed[name] = value;
  }
  return changed as SideColumns;
}

function checkSeo(seo: SeoInput | undefined): void {
  const image = seo?.ogImage;
  if (typeof image === 'string' && !isAbsoluteHttpUrl(image)) {
    const why = 'must be an absolute http(s) URL or null';
    throw new AppError('invalid_body', `seo.ogImage ${why}.`, [{ path: '/seo/ogImage', message: why }]);
  }
}

function isAbsoluteHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && !/\s/.test(value);
  } catch {
    return false;
  }
}
