import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

/** Times are epoch milliseconds; booleans are 0/1 so both dialects read them the same way. */

export interface ProjectsTable {
  id: string;
  name: string;
  website_url: string | null;
  articles_path: string;
  created_at: number;
  /** Bumped in the same transaction as any write that changes what the project serves. */
  content_version: Generated<number>;
  /**
   * The project's last change number in the changes feed: taken under the project's write lock,
   * so change numbers follow commit order.
   */
  change_seq: Generated<number>;
  /** Where the site previews an article: an http(s) URL with `{token}` and maybe `{slug}`. */
  preview_url: Generated<string | null>;
  /**
   * How far the rewrite of served JSON after a site settings change got: null when every article
   * serves the current settings, '' when none does yet, else the last article id rewritten.
   */
  rewrite_after: Generated<string | null>;
}
export type ProjectRow = Selectable<ProjectsTable>;
export type NewProjectRow = Insertable<ProjectsTable>;
export type ProjectUpdate = Updateable<ProjectsTable>;

export interface ContentKeysTable {
  id: string;
  project_id: string;
  name: string;
  prefix: string;
  /** SHA-256 of the key, hex; the key itself is never stored. */
  key_hash: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  /** `content` reads what is published; `preview` reads the preview perspective (drafts too). */
  kind: Generated<KeyKind>;
}
export type KeyKind = 'content' | 'preview';
export type ContentKeyRow = Selectable<ContentKeysTable>;
export type NewContentKeyRow = Insertable<ContentKeysTable>;

export interface ArticlesTable {
  project_id: string;
  id: string;
  slug: string;
  title: string;
  /** JSON text of the ingested blocks. */
  blocks: string;
  /** JSON text of the ingested seo fields. */
  seo: string;
  /** JSON text of the related slugs. */
  related: string;
  published: number;
  published_at: number | null;
  updated_at: number;
  created_at: number;
  /**
   * The article's JSON exactly as the delivery list serves it (no `related`), so a page is
   * assembled without parsing and re-serializing. Null only for rows written before it existed.
   */
  served: string | null;
  /** The change number of the last change a content key could see; null if never served. */
  change_seq: number | null;
  /** The slug the article was last served under: what the feed's delete names. */
  served_slug: string | null;
  /** JSON text of the draft (`StoredDraft`), or null when the article has none. */
  draft: Generated<string | null>;
  /** The draft's slug, for slug conflicts; null without a draft. */
  draft_slug: Generated<string | null>;
  /** When the draft was saved; null without a draft. */
  draft_updated_at: Generated<number | null>;
  /** When a schedule publishes / unpublishes the article; null when none is set. */
  publish_at: Generated<number | null>;
  unpublish_at: Generated<number | null>;
  /** The change number of the last change the preview perspective shows (drafts included). */
  preview_seq: Generated<number | null>;
}
export type ArticleRow = Selectable<ArticlesTable>;
/** An article read without its served JSON, for a path that makes something else of it. */
export type UnservedArticleRow = Omit<ArticleRow, 'served'>;
export type NewArticleRow = Insertable<ArticlesTable>;
export type ArticleUpdate = Updateable<ArticlesTable>;

/** A served article that was deleted: what the changes feed tells replicas, until pruned. */
export interface ArticleTombstonesTable {
  project_id: string;
  id: string;
  /** The slug it was last served under. */
  slug: string;
  change_seq: number;
  deleted_at: number;
}
export type ArticleTombstoneRow = Selectable<ArticleTombstonesTable>;

/** A deleted article, for replicas of the preview perspective, until pruned. */
export interface PreviewTombstonesTable {
  project_id: string;
  id: string;
  /** Its slug in the preview perspective when it was deleted. */
  slug: string;
  preview_seq: number;
  deleted_at: number;
}
export type PreviewTombstoneRow = Selectable<PreviewTombstonesTable>;

/** A preview link's token: one article, for an hour. */
export interface PreviewTokensTable {
  /** SHA-256 of the token, hex; the token itself is only in the link. */
  token_hash: string;
  project_id: string;
  article_id: string;
  created_at: number;
  expires_at: number;
}
export type PreviewTokenRow = Selectable<PreviewTokensTable>;

export interface EventsTable {
  /** The Standard Webhooks message id (`msg_…`), the same on every delivery attempt. */
  id: string;
  project_id: string;
  type: string;
  /** JSON text of the webhook body. */
  payload: string;
  created_at: number;
}
export type EventRow = Selectable<EventsTable>;
export type NewEventRow = Insertable<EventsTable>;

export interface WebhooksTable {
  project_id: string;
  url: string | null;
  /** `whsec_…`, sealed with FOLIO_SECRET_KEY when that is set. */
  secret: string | null;
  /** Deliveries are signed only once the secret was revealed (seed: Webhook signatures). */
  secret_revealed_at: number | null;
  /** The secret before the last rotation; it keeps signing until it expires. */
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  /** Set when a receiver answered 410 Gone; cleared when the URL is set again. */
  disabled_at: number | null;
  disabled_reason: string | null;
  updated_at: number;
}
export type WebhookRow = Selectable<WebhooksTable>;

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookDeliveriesTable {
  id: string;
  project_id: string;
  /** The event, whose id is the Standard Webhooks message id. */
  event_id: string;
  status: DeliveryStatus;
  attempts: Generated<number>;
  next_attempt_at: number | null;
  /** Unique per claim: only the holder of the current lease may record an outcome. */
  lock_token: string | null;
  locked_until: number | null;
  /** A manual retry asked for while an attempt was in flight: sent again once it is recorded. */
  resend_requested_at: number | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type NewDeliveryRow = Insertable<WebhookDeliveriesTable>;
export type DeliveryUpdate = Updateable<WebhookDeliveriesTable>;

export interface WebhookAttemptsTable {
  delivery_id: string;
  attempt: number;
  started_at: number;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  /** At most a few KB of what the receiver answered. */
  response_body: string | null;
}
export type AttemptRow = Selectable<WebhookAttemptsTable>;
export type NewAttemptRow = Insertable<WebhookAttemptsTable>;

export interface SettingsTable {
  key: string;
  value: string;
}

export interface DashboardSessionsTable {
  /** SHA-256 of the session id, hex; the id itself is only in the browser's cookie. */
  id_hash: string;
  created_at: number;
  expires_at: number;
  /** A one-time message for the next page, sealed with a key only the cookie can derive. */
  flash: string | null;
}
export type DashboardSessionRow = Selectable<DashboardSessionsTable>;

export interface Database {
  projects: ProjectsTable;
  content_keys: ContentKeysTable;
  articles: ArticlesTable;
  article_tombstones: ArticleTombstonesTable;
  preview_tombstones: PreviewTombstonesTable;
  preview_tokens: PreviewTokensTable;
  events: EventsTable;
  settings: SettingsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  dashboard_sessions: DashboardSessionsTable;
}
