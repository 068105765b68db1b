import { type Static, type TSchema, Type } from '@sinclair/typebox';
import type { Block } from './blocks.ts';

/**
 * Shapes of the HTTP API. Route schemas are built from these, so they are at once the request
 * validators, the response allow-lists and the OpenAPI document.
 */

const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds' });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * Blocks as served. Ingest validated them against the block schema; the response only needs to
 * pass them through, so the serializer is told not to re-check each variant.
 */
const ServedBlocks = Type.Unsafe<Block[]>({
  type: 'array',
  description: 'Blocks; see /public/v1/schema/blocks.json',
  items: { type: 'object', additionalProperties: true },
});
const JsonObject = Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true });

export const SeoSchema = Type.Object({
  title: Type.String(),
  description: Type.String(),
  canonicalPath: Type.String({ description: 'Articles path + "/" + percent-encoded slug' }),
  ogTitle: Type.String(),
  ogDescription: Type.String(),
  ogImage: Nullable(Type.String()),
  ogType: Type.String(),
  jsonLd: JsonObject,
});
/** The `seo` object of a served article. */
export type Seo = Static<typeof SeoSchema>;

export const RelatedLinkSchema = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  title: Type.String(),
  canonicalPath: Type.String(),
});
/** One item of an article's `related` list. */
export type RelatedLink = Static<typeof RelatedLinkSchema>;

const articleFields = {
  id: Type.String(),
  slug: Type.String(),
  title: Type.String(),
  blocks: ServedBlocks,
  seo: SeoSchema,
  publishedAt: Timestamp,
  updatedAt: Timestamp,
};
export const ArticleListItemSchema = Type.Object(articleFields);
/** An article as the list endpoint serves it (no `related`). */
export type ArticleListItem = Static<typeof ArticleListItemSchema>;
export const ArticleSchema = Type.Object({ ...articleFields, related: Type.Array(RelatedLinkSchema) });
/** An article as the single-article read serves it. */
export type Article = Static<typeof ArticleSchema>;

/**
 * Where an article stands, in the preview perspective: served as is (`published`), served
 * with a draft shown instead (`changed`), or not served (`unpublished`).
 */
export const ArticleStatusSchema = Type.Union([
  Type.Literal('published'),
  Type.Literal('changed'),
  Type.Literal('unpublished'),
]);
export type ArticleStatus = Static<typeof ArticleStatusSchema>;
const previewFields = {
  ...articleFields,
  publishedAt: Nullable(Timestamp),
  status: ArticleStatusSchema,
};
export const PreviewListItemSchema = Type.Object(previewFields, {
  description: 'An article in the preview perspective (preview key): its draft when it has one',
});
/** An article as a preview key's list shows it: its draft when it has one, and its status. */
export type PreviewListItem = Static<typeof PreviewListItemSchema>;
export const PreviewArticleSchema = Type.Object({ ...previewFields, related: Type.Array(RelatedLinkSchema) });
/** An article as a preview key or preview token reads it by slug. */
export type PreviewArticle = Static<typeof PreviewArticleSchema>;

export const PaginationSchema = Type.Object({
  page: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer({ description: 'Count of all items' }),
  totalPages: Type.Integer(),
  hasNext: Type.Boolean(),
  hasPrev: Type.Boolean(),
});
/** The pagination object of a list answer. */
export type Pagination = Static<typeof PaginationSchema>;

export const SitemapEntrySchema = Type.Object({
  url: Type.String(),
  lastModified: Timestamp,
});
/** One sitemap entry. */
export type SitemapEntry = Static<typeof SitemapEntrySchema>;

/**
 * `page` and `limit` of a list. Any whole number ≥ 1 is taken: a larger `limit` is capped to
 * 100, a page past the end is an empty page. Other parameters (a cache buster, a tracking tag)
 * are ignored, as a CDN or a site may add them.
 */
export const PageQuerySchema = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, default: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, default: 20, description: 'Capped to 100' })),
});

/** `since` and `limit` of the changes feed; a larger `limit` is capped to 100. */
export const ChangesQuerySchema = Type.Object({
  since: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'The cursor of the last answer; omit to sync from scratch',
    }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, default: 100, description: 'Capped to 100' })),
});

export const ChangeUpsertSchema = Type.Object({
  type: Type.Literal('upsert'),
  article: ArticleListItemSchema,
});
/** A change that stores `article` in the replica, replacing any with its `id`. */
export type ChangeUpsert = Static<typeof ChangeUpsertSchema>;
export const ChangeDeleteSchema = Type.Object({
  type: Type.Literal('delete'),
  id: Type.String(),
  slug: Type.String({ description: 'The slug it was last served under' }),
});
/** A change that removes the article `id` from the replica: unpublished or deleted. */
export type ChangeDelete = Static<typeof ChangeDeleteSchema>;
export const ChangeSchema = Type.Union([ChangeUpsertSchema, ChangeDeleteSchema]);
/**
 * One entry of the changes feed: an article to store (replacing any with its `id`), or one no
 * longer served (unpublished or deleted) to remove by `id`.
 */
export type Change = Static<typeof ChangeSchema>;

export const ChangesPageSchema = Type.Object({
  changes: Type.Array(ChangeSchema),
  cursor: Type.String({ description: 'Opaque: pass it as `since` to get what changed after this answer' }),
  hasMore: Type.Boolean({ description: 'Call again at once with `cursor`: more changes are waiting' }),
});
/** One answer of the changes feed. */
export type ChangesPage = Static<typeof ChangesPageSchema>;

export const PreviewChangesPageSchema = Type.Object(
  {
    changes: Type.Array(
      Type.Union([
        Type.Object({ type: Type.Literal('upsert'), article: PreviewListItemSchema }),
        ChangeDeleteSchema,
      ]),
    ),
    cursor: ChangesPageSchema.properties.cursor,
    hasMore: ChangesPageSchema.properties.hasMore,
  },
  { description: 'The changes feed for a preview key: every article, drafts shown, with status' },
);
/** One answer of the changes feed to a preview key. */
export type PreviewChangesPage = Static<typeof PreviewChangesPageSchema>;

/** Every `error.code` the API answers with; the server's catalogue gives each its status. */
export const ERROR_CODES = [
  'bad_request',
  'invalid_query',
  'invalid_body',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'cursor_expired',
  'payload_too_large',
  'unsupported_media_type',
  'request_timeout',
  'expectation_failed',
  'rate_limited',
  'headers_too_large',
  'internal',
  'unavailable',
] as const;
export const ErrorCodeSchema = Type.Union(
  ERROR_CODES.map((code) => Type.Literal(code)),
  { description: 'What went wrong, in snake_case; the message says it in words' },
);
/** An `error.code` of the API. */
export type ErrorCode = (typeof ERROR_CODES)[number];

export const ErrorBodySchema = Type.Object({
  success: Type.Literal(false),
  error: Type.Object({
    code: ErrorCodeSchema,
    message: Type.String(),
    details: Type.Optional(
      Type.Array(Type.Object({ path: Type.String(), message: Type.String() }), {
        description: 'Validation problems: JSON Pointer of the field and what is wrong',
      }),
    ),
  }),
});
/** Every error answer of the API. */
export type ErrorBody = Static<typeof ErrorBodySchema>;

/** `{ success: true, data }` around a success payload. */
export function Success<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Literal(true), data });
}
/** `{ success: true, data: [...], pagination }` around a page of items. */
export function SuccessPage<T extends TSchema>(item: T) {
  return Type.Object({ success: Type.Literal(true), data: Type.Array(item), pagination: PaginationSchema });
}

// Management API shapes.

const ProjectName = Type.String({ minLength: 1, maxLength: 200 });
const WebsiteUrl = Type.String({
  maxLength: 2048,
  description: 'Absolute http(s) origin of the website, e.g. https://www.example.com',
});
const ArticlesPath = Type.String({
  maxLength: 500,
  description: 'Path the articles live under, e.g. /blog; empty for the site root',
});
const PreviewUrl = Type.String({
  maxLength: 2048,
  description:
    'Where the site previews an article: an http(s) URL containing {token} and optionally {slug}, e.g. https://www.example.com/api/preview?slug={slug}&token={token}',
});

export const ProjectSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  websiteUrl: Nullable(Type.String()),
  articlesPath: Type.String(),
  previewUrl: Nullable(Type.String()),
  createdAt: Timestamp,
});
/** A project and its site settings. */
export type Project = Static<typeof ProjectSchema>;

export const NewProjectSchema = Type.Object(
  {
    name: ProjectName,
    websiteUrl: Type.Optional(Nullable(WebsiteUrl)),
    articlesPath: Type.Optional(ArticlesPath),
    previewUrl: Type.Optional(Nullable(PreviewUrl)),
  },
  { additionalProperties: false },
);
export type NewProject = Static<typeof NewProjectSchema>;
export const ProjectPatchSchema = Type.Object(
  {
    name: Type.Optional(ProjectName),
    websiteUrl: Type.Optional(Nullable(WebsiteUrl)),
    articlesPath: Type.Optional(ArticlesPath),
    previewUrl: Type.Optional(Nullable(PreviewUrl)),
  },
  { additionalProperties: false },
);
export type ProjectPatch = Static<typeof ProjectPatchSchema>;

export const KeyKindSchema = Type.Union([Type.Literal('content'), Type.Literal('preview')], {
  description: 'content (folio_ck_…) reads what is published; preview (folio_pk_…) reads drafts too',
});
/** What a key reads: published content, or the preview perspective. */
export type KeyKind = Static<typeof KeyKindSchema>;
export const NewContentKeySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    kind: Type.Optional(KeyKindSchema),
  },
  { additionalProperties: false },
);
export const ContentKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: KeyKindSchema,
  prefix: Type.String({ description: 'The first characters of the key, to recognise it' }),
  createdAt: Timestamp,
  lastUsedAt: Nullable(Timestamp),
});
/** A content key as listed: never the secret. */
export type ContentKey = Static<typeof ContentKeySchema>;
export const CreatedContentKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: KeyKindSchema,
  prefix: Type.String(),
  key: Type.String({ description: 'The secret key; shown only in this answer' }),
  createdAt: Timestamp,
});
/** The answer to creating a content key: the only time `key` is shown. */
export type CreatedContentKey = Static<typeof CreatedContentKeySchema>;

export const SeoInputSchema = Type.Object(
  {
    title: Type.Optional(Type.String({ maxLength: 300 })),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    ogTitle: Type.Optional(Type.String({ maxLength: 300 })),
    ogDescription: Type.Optional(Type.String({ maxLength: 1000 })),
    ogImage: Type.Optional(Nullable(Type.String({ maxLength: 2048, description: 'Absolute http(s) URL' }))),
    ogType: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
    jsonLd: Type.Optional(JsonObject),
  },
  { additionalProperties: false, description: 'Any seo field but canonicalPath, which is derived' },
);
/** The `seo` fields an author may set; the rest take defaults. */
export type SeoInput = Static<typeof SeoInputSchema>;

export const ARTICLE_ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
export const ArticleIdSchema = Type.String({
  pattern: ARTICLE_ID_PATTERN,
  description: '1–64 letters, digits, underscores or hyphens',
});

/** The most characters a slug may have, counted in its stored form, NFC. */
export const SLUG_MAX_LENGTH = 200;

/**
 * A slug: the last segment of an article's URL. Ajv tests patterns with the `u` flag, so
 * `\p{…}` are Unicode general categories and a lone surrogate is its own code point: refused
 * as Cs, with every control (Cc) and format character (Cf: zero-width and bidi controls among
 * them). `.` and `..` would make canonical paths that resolve elsewhere. The server stores
 * slugs normalized to NFC.
 */
export const SlugSchema = Type.String({
  minLength: 1,
  // The limit holds on the NFC form (the server counts it after normalizing), so that a slug sent
  // decomposed fits as it does composed; one character decomposes to at most four code points.
  maxLength: SLUG_MAX_LENGTH * 4,
  pattern: String.raw`^(?!\.\.?$)[^/?#%\s\p{Cc}\p{Cf}\p{Cs}]+$`,
  description:
    '1–200 characters once normalized to NFC, not "." or "..", without /, ?, #, %, whitespace, control or format characters (Unicode Cc, Cf) or lone surrogates; stored normalized to NFC',
});

const ScheduleTime = Nullable(
  Type.String({
    format: 'date-time',
    maxLength: 64,
    description: 'ISO 8601 time with a time zone; null clears the schedule. A past time applies at once',
  }),
);
const scheduleFields = { publishAt: Type.Optional(ScheduleTime), unpublishAt: Type.Optional(ScheduleTime) };

/** A schedule change: each time set, cleared with null, or left as it is when absent. */
export const SchedulePatchSchema = Type.Object(scheduleFields, { additionalProperties: false });
export interface SchedulePatch {
  publishAt?: string | null;
  unpublishAt?: string | null;
}

/** The content fields an article and a draft share. */
function contentFields<B extends TSchema>(blocks: B) {
  return {
    slug: SlugSchema,
    title: Type.String({ minLength: 1, maxLength: 500 }),
    blocks,
    seo: Type.Optional(SeoInputSchema),
    related: Type.Optional(Type.Array(SlugSchema, { maxItems: 50, description: 'Slugs, in order' })),
  };
}

/** Builds the ingest body schema around the block array schema of this server. */
export function articleInputSchema<B extends TSchema>(blocks: B) {
  return Type.Object(
    { ...contentFields(blocks), published: Type.Optional(Type.Boolean()), ...scheduleFields },
    { additionalProperties: false },
  );
}
/** Builds the draft body schema: an article's content, validated exactly as the article's. */
export function draftInputSchema<B extends TSchema>(blocks: B) {
  return Type.Object({ ...contentFields(blocks), ...scheduleFields }, { additionalProperties: false });
}
/** The content of an article or a draft, as ingested. */
export interface ContentInput {
  slug: string;
  title: string;
  blocks: Block[];
  seo?: SeoInput;
  related?: string[];
}
/** The body of a draft save. */
export interface DraftInput extends ContentInput, SchedulePatch {}
/** The body of an article upsert. */
export interface ArticleInput extends ContentInput, SchedulePatch {
  published?: boolean;
}

export const DraftSchema = Type.Object(
  {
    slug: Type.String(),
    title: Type.String(),
    blocks: ServedBlocks,
    seo: SeoInputSchema,
    related: Type.Array(Type.String()),
    updatedAt: Timestamp,
  },
  { description: 'The working version, not served to content keys; publish makes it the served one' },
);
/** An article's draft, as ingested. */
export type Draft = Static<typeof DraftSchema>;

export const AdminArticleSchema = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  title: Type.String(),
  blocks: ServedBlocks,
  seo: SeoInputSchema,
  related: Type.Array(Type.String()),
  published: Type.Boolean(),
  publishedAt: Nullable(Timestamp),
  updatedAt: Timestamp,
  createdAt: Timestamp,
  draft: Nullable(DraftSchema),
  publishAt: Nullable(Timestamp),
  unpublishAt: Nullable(Timestamp),
});
/** An article as the management API shows it: the ingested fields and its state. */
export type AdminArticle = Static<typeof AdminArticleSchema>;

export const PreviewLinkSchema = Type.Object({
  url: Type.String({ description: "The project's previewUrl with {token} and {slug} filled in" }),
  token: Type.String({
    description: 'folio_pt_…: reads this one article by slug, in the preview perspective',
  }),
  expiresAt: Timestamp,
});
/** A preview link: where an editor opens one article's draft on the site, for an hour. */
export type PreviewLink = Static<typeof PreviewLinkSchema>;

// Webhook shapes.

export const WebhookSchema = Type.Object({
  url: Nullable(Type.String()),
  signed: Type.Boolean({ description: 'True once the signing secret was revealed: deliveries are signed' }),
  enabled: Type.Boolean({
    description: 'False after a receiver answered 410 Gone, until the URL is set again',
  }),
  disabledReason: Nullable(Type.String()),
  secretRotatedAt: Nullable(Timestamp),
});
/** A project's webhook settings. */
export type Webhook = Static<typeof WebhookSchema>;

export const WebhookInputSchema = Type.Object(
  { url: Nullable(Type.String({ maxLength: 2048, description: 'An https: or http: URL; null removes it' })) },
  { additionalProperties: false },
);

export const WebhookSecretSchema = Type.Object({
  secret: Type.String({ description: 'whsec_ and 32 random bytes, base64 (Standard Webhooks)' }),
});

export const DeliveryStatusSchema = Type.Union([
  Type.Literal('pending'),
  Type.Literal('succeeded'),
  Type.Literal('failed'),
]);

export const DeliveryAttemptSchema = Type.Object({
  attempt: Type.Integer(),
  startedAt: Timestamp,
  durationMs: Type.Integer(),
  statusCode: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  responseBody: Nullable(Type.String({ description: 'At most 4 KB of what the receiver answered' })),
});

export const DeliverySchema = Type.Object({
  id: Type.String(),
  webhookId: Type.String({ description: 'The webhook-id header: the same on every retry' }),
  event: Type.String(),
  status: DeliveryStatusSchema,
  attempts: Type.Integer(),
  lastStatusCode: Nullable(Type.Integer()),
  lastError: Nullable(Type.String()),
  createdAt: Timestamp,
  nextAttemptAt: Nullable(Timestamp),
  log: Type.Array(DeliveryAttemptSchema, { description: 'Every attempt, oldest first' }),
});
/** One event's delivery to the project's webhook URL, with its attempts. */
export type Delivery = Static<typeof DeliverySchema>;

export const QueuedDeliverySchema = Type.Object({
  deliveryId: Type.String(),
  webhookId: Type.String(),
});

// Webhook events: the bodies Folio POSTs to a project's webhook URL.

/** The event names Folio sends (contract, Webhook events). */
export const WEBHOOK_EVENT_NAMES = [
  'content.created',
  'content.updated',
  'content.unpublished',
  'content.deleted',
  'webhook.test',
] as const;
export const WebhookEventNameSchema = Type.Union(WEBHOOK_EVENT_NAMES.map((name) => Type.Literal(name)));
/** An event name Folio sends. */
export type WebhookEventName = (typeof WEBHOOK_EVENT_NAMES)[number];

const ArticleRef = {
  id: Type.String({ description: "The article's id" }),
  slug: Type.String({ description: "The article's slug (after the change)" }),
};
const eventBody = <T extends TSchema>(name: WebhookEventName, data: T, description: string) =>
  Type.Object(
    {
      event: Type.Literal(name),
      projectId: Type.String(),
      timestamp: Type.String({ format: 'date-time', description: 'When the change committed' }),
      data,
    },
    { description },
  );

/** Each event's body, by name: what the contract's table promises for it. */
export const WEBHOOK_EVENT_BODIES = {
  'content.created': eventBody(
    'content.created',
    Type.Object(ArticleRef),
    'An article was published: the first time, or again after it was unpublished',
  ),
  'content.updated': eventBody(
    'content.updated',
    Type.Object({
      ...ArticleRef,
      previousSlug: Type.Optional(Type.String({ description: 'The slug before a rename' })),
    }),
    "A published article's served content changed",
  ),
  'content.unpublished': eventBody(
    'content.unpublished',
    Type.Object(ArticleRef),
    'A published article was unpublished: it is no longer served',
  ),
  'content.deleted': eventBody(
    'content.deleted',
    Type.Object(ArticleRef),
    'A published article was deleted: it is no longer served',
  ),
  'webhook.test': eventBody(
    'webhook.test',
    Type.Object({}),
    'Sent by the dashboard or the management API to try the webhook; receivers ignore it',
  ),
} as const satisfies Record<WebhookEventName, TSchema>;
