// Generated from @folio/schema by packages/client/scripts/generate.ts: do not edit.
// Regenerate with `npm run generate -w @folio/client`.

/** A run of text with optional marks and link. */
export type TextRun = {
  text: string;
  bold?: boolean;
  italic?: boolean;
  code?: boolean;
  /** An http(s) URL, a site path (/…, not //…) or a #anchor */
  href?: string;
  rel?: string;
};

/** One question and answer of a `faq` block. */
export type FaqItem = {
  question: string;
  answer: TextRun[];
};

/** The `heading` block. */
export type HeadingBlock = {
  type: 'heading';
  /** Optional identifier of the block */
  id?: string;
  level: 2 | 3 | 4;
  text: string;
};

/** The `paragraph` block. */
export type ParagraphBlock = {
  type: 'paragraph';
  /** Optional identifier of the block */
  id?: string;
  content: TextRun[];
};

/** The `list` block. */
export type ListBlock = {
  type: 'list';
  /** Optional identifier of the block */
  id?: string;
  ordered: boolean;
  items: TextRun[][];
};

/** The `quote` block. */
export type QuoteBlock = {
  type: 'quote';
  /** Optional identifier of the block */
  id?: string;
  content: TextRun[];
  attribution?: string;
};

/** The `code` block. */
export type CodeBlock = {
  type: 'code';
  /** Optional identifier of the block */
  id?: string;
  code: string;
  language?: string;
};

/** The `image` block. */
export type ImageBlock = {
  type: 'image';
  /** Optional identifier of the block */
  id?: string;
  /** An http(s) URL or a site path */
  url: string;
  alt: string;
  caption?: string;
  /** The image's width in pixels; give width and height together */
  width?: number;
  /** The image's height in pixels; give width and height together */
  height?: number;
};

/** The `callout` block. */
export type CalloutBlock = {
  type: 'callout';
  /** Optional identifier of the block */
  id?: string;
  variant: 'info' | 'tip' | 'warning';
  content: TextRun[];
};

/** The `cta` block. */
export type CtaBlock = {
  type: 'cta';
  /** Optional identifier of the block */
  id?: string;
  heading: string;
  buttonLabel: string;
  /** An http(s) URL, a site path (/…, not //…) or a #anchor */
  buttonHref: string;
  body?: string;
};

/** The `faq` block. */
export type FaqBlock = {
  type: 'faq';
  /** Optional identifier of the block */
  id?: string;
  items: FaqItem[];
};

/** The `table` block. */
export type TableBlock = {
  type: 'table';
  /** Optional identifier of the block */
  id?: string;
  headers: string[];
  rows: string[][];
};

/** The `video` block. */
export type VideoBlock = {
  type: 'video';
  /** Optional identifier of the block */
  id?: string;
  provider: 'youtube';
  videoId: string;
  /** An http(s) URL */
  url: string;
  title: string;
};

/** The `type` values of all block kinds. */
export type BlockType =
  | 'heading'
  | 'paragraph'
  | 'list'
  | 'quote'
  | 'code'
  | 'image'
  | 'callout'
  | 'cta'
  | 'faq'
  | 'table'
  | 'video';

/** One element of an article's `blocks` array. */
export type Block =
  | HeadingBlock
  | ParagraphBlock
  | ListBlock
  | QuoteBlock
  | CodeBlock
  | ImageBlock
  | CalloutBlock
  | CtaBlock
  | FaqBlock
  | TableBlock
  | VideoBlock;

/** The `seo` object of a served article. */
export type Seo = {
  title: string;
  description: string;
  /** Articles path + "/" + percent-encoded slug */
  canonicalPath: string;
  ogTitle: string;
  ogDescription: string;
  ogImage: string | null;
  ogType: string;
  jsonLd: Record<string, unknown>;
};

/** One item of an article's `related` list. */
export type RelatedLink = {
  id: string;
  slug: string;
  title: string;
  canonicalPath: string;
};

/** An article as the list endpoint serves it (no `related`). */
export type ArticleListItem = {
  id: string;
  slug: string;
  title: string;
  /** Blocks; see /public/v1/schema/blocks.json */
  blocks: Block[];
  seo: Seo;
  /** ISO 8601 UTC with milliseconds */
  publishedAt: string;
  /** ISO 8601 UTC with milliseconds */
  updatedAt: string;
};

/** An article as the single-article read serves it. */
export type Article = {
  id: string;
  slug: string;
  title: string;
  /** Blocks; see /public/v1/schema/blocks.json */
  blocks: Block[];
  seo: Seo;
  /** ISO 8601 UTC with milliseconds */
  publishedAt: string;
  /** ISO 8601 UTC with milliseconds */
  updatedAt: string;
  related: RelatedLink[];
};

/** The pagination object of a list answer. */
export type Pagination = {
  page: number;
  limit: number;
  /** Count of all items */
  total: number;
  totalPages: number;
  hasNext: boolean;
  hasPrev: boolean;
};

/** One sitemap entry. */
export type SitemapEntry = {
  url: string;
  /** ISO 8601 UTC with milliseconds */
  lastModified: string;
};

/** An `error.code` of the API. */
export type ErrorCode =
  | 'bad_request'
  | 'invalid_query'
  | 'invalid_body'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'cursor_expired'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'request_timeout'
  | 'expectation_failed'
  | 'rate_limited'
  | 'headers_too_large'
  | 'internal'
  | 'unavailable';

/** An event name Folio sends to a webhook. */
export type WebhookEventName =
  | 'content.created'
  | 'content.updated'
  | 'content.unpublished'
  | 'content.deleted'
  | 'webhook.test';

/** Every error answer of the API. */
export type ErrorBody = {
  success: false;
  error: {
    /** What went wrong, in snake_case; the message says it in words */
    code: ErrorCode;
    message: string;
    /** Validation problems: JSON Pointer of the field and what is wrong */
    details?: {
      path: string;
      message: string;
    }[];
  };
};

/** A change that stores `article` in the replica, replacing any with its `id`. */
export type ChangeUpsert = {
  type: 'upsert';
  article: ArticleListItem;
};

/** A change that removes the article `id` from the replica: unpublished or deleted. */
export type ChangeDelete = {
  type: 'delete';
  id: string;
  /** The slug it was last served under */
  slug: string;
};

/** One entry of the changes feed: an article to store by `id`, or one to remove by `id`. */
export type Change = ChangeUpsert | ChangeDelete;

/** One answer of the changes feed. */
export type ChangesPage = {
  changes: Change[];
  /** Opaque: pass it as `since` to get what changed after this answer */
  cursor: string;
  /** Call again at once with `cursor`: more changes are waiting */
  hasMore: boolean;
};

/** What a key reads: `content` (folio_ck_…) what is published, `preview` (folio_pk_…) drafts too. */
export type KeyKind = 'content' | 'preview';

/** Where an article stands in the preview perspective: served as is, served with a draft, or not served. */
export type ArticleStatus = 'published' | 'changed' | 'unpublished';

/** An article in the preview perspective, as a list shows it: its draft when it has one. */
export type PreviewListItem = {
  id: string;
  slug: string;
  title: string;
  /** Blocks; see /public/v1/schema/blocks.json */
  blocks: Block[];
  seo: Seo;
  publishedAt: string | null;
  /** ISO 8601 UTC with milliseconds */
  updatedAt: string;
  status: ArticleStatus;
};

/** An article in the preview perspective, as a preview key or preview token reads it by slug. */
export type PreviewArticle = {
  id: string;
  slug: string;
  title: string;
  /** Blocks; see /public/v1/schema/blocks.json */
  blocks: Block[];
  seo: Seo;
  publishedAt: string | null;
  /** ISO 8601 UTC with milliseconds */
  updatedAt: string;
  status: ArticleStatus;
  related: RelatedLink[];
};

/** A change of the preview feed that stores `article` (drafts shown) in the replica. */
export type PreviewChangeUpsert = {
  type: 'upsert';
  /** An article in the preview perspective (preview key): its draft when it has one */
  article: PreviewListItem;
};

/** One entry of the changes feed read with a preview key. */
export type PreviewChange = PreviewChangeUpsert | ChangeDelete;

/** One answer of the changes feed to a preview key. */
export type PreviewChangesPage = {
  changes: PreviewChange[];
  /** Opaque: pass it as `since` to get what changed after this answer */
  cursor: string;
  /** Call again at once with `cursor`: more changes are waiting */
  hasMore: boolean;
};
