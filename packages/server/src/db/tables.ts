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
}
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
}
export type ArticleRow = Selectable<ArticlesTable>;
export type NewArticleRow = Insertable<ArticlesTable>;
export type ArticleUpdate = Updateable<ArticlesTable>;

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

export interface SettingsTable {
  key: string;
  value: string;
}

export interface Database {
  projects: ProjectsTable;
  content_keys: ContentKeysTable;
  articles: ArticlesTable;
  events: EventsTable;
  settings: SettingsTable;
}
