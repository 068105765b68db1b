/**
 * @folio/client: everything a website needs to show Folio articles. Web APIs only, so it runs
 * on Node, Deno 2, Bun and edge runtimes; the Node webhook handler lives in `@folio/client/node`.
 */

export type { BlockProblem } from './block-guards.ts';
export { checkBlock, isTextRun } from './block-guards.ts';
export { createClient } from './client.ts';
export type {
  ArticleOf,
  ArticlePage,
  ChangeOf,
  ClientOptions,
  CommonClientOptions,
  ContentClientOptions,
  FolioClient,
  ListArticlesOptions,
  ListItemOf,
  PreviewClientOptions,
  PreviewTokenOptions,
  RequestOptions,
  SyncOptions,
  SyncResult,
} from './client-types.ts';
export type { BlockComponent, BlockOf } from './default-components.ts';
export { defaultComponents } from './default-components.ts';
export type { FolioErrorCode, FolioErrorDetail, FolioErrorInit } from './folio-error.ts';
export { FolioError } from './folio-error.ts';
export type {
  Article,
  ArticleListItem,
  ArticleStatus,
  Block,
  BlockType,
  Change,
  ChangesPage,
  ErrorCode,
  KeyKind,
  Pagination,
  PreviewArticle,
  PreviewChange,
  PreviewChangesPage,
  PreviewListItem,
  RelatedLink,
  Seo,
  SitemapEntry,
  TextRun,
} from './generated/schema.ts';
export type { HtmlValue } from './html.ts';
export { escapeHtml, html, raw, SafeHtml } from './html.ts';
export { serializeJsonLd } from './json-ld.ts';
export type { BlockComponents, RenderBlocksOptions } from './render-blocks.ts';
export { renderBlocks } from './render-blocks.ts';
export type { RenderContext } from './render-context.ts';
export type { HeadArticle, RenderHeadOptions } from './render-head.ts';
export { canonicalUrl, renderHead } from './render-head.ts';
export type { LinkComponent, LinkProps } from './render-text.ts';
export { defaultLink, renderText, renderTextRun, safeHref } from './render-text.ts';
export type { RetryPolicy } from './retry.ts';
export { parseRetryAfter } from './retry.ts';
export type { SitemapIndexItem } from './sitemap-xml.ts';
export { chunkSitemapEntries, SITEMAP_MAX_URLS, sitemapIndexXml, sitemapXml } from './sitemap-xml.ts';
export type {
  WebhookEvent,
  WebhookEventData,
  WebhookEventName,
  WebhookFailure,
  WebhookHeaders,
} from './webhook.ts';
export { verifyWebhook, WebhookVerificationError, webhookId } from './webhook.ts';
export type { WebhookIdStore } from './webhook-ids.ts';
export { createMemoryIdStore } from './webhook-ids.ts';
export type { WebhookOutcome, WebhookReceiver, WebhookReceiverOptions } from './webhook-receiver.ts';
export { createWebhookReceiver } from './webhook-receiver.ts';
