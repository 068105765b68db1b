import {
  ArticleListItemSchema,
  ArticleSchema,
  ChangesPageSchema,
  ChangesQuerySchema,
  PageQuerySchema,
  PreviewArticleSchema,
  PreviewChangesPageSchema,
  PreviewListItemSchema,
  SitemapEntrySchema,
  Success,
  SuccessPage,
} from '@folio/schema';
import { type TObject, type TSchema, Type } from '@sinclair/typebox';
import type { ProjectRow } from '../../db/tables.ts';
import type { CachedRoute } from '../../http/fast-path.ts';
import { changesFreshUntil, listChanges, listPreviewChanges } from '../../services/changes.ts';
import {
  type DataJson,
  type DeliveryDeps,
  getPublishedArticle,
  listPublishedArticles,
  requireWebsiteUrl,
  streamSitemap,
} from '../../services/delivery.ts';
import { getPreviewArticle, listPreviewArticles } from '../../services/preview.ts';
import { ProjectParams } from '../common.ts';

/** What a delivery request asks for, as the route's schemas leave it: defaults applied. */
export interface DeliveryAsk {
  params: Record<string, string>;
  query: Record<string, unknown>;
}

/** Who reads a preview answer: a preview key, or a preview token good for one article. */
export interface PreviewReader {
  /** Set for a preview token: the one article it reads. */
  articleId?: string;
}

/**
 * One delivery route, declared once: Fastify registers it from this (`content.ts`), the fast
 * path matches and keys cached answers from it (`http/fast-path.ts`), metrics name it by `url`.
 */
export interface DeliveryRoute extends CachedRoute {
  /** The operation's stable name in the OpenAPI document: what generated clients call it. */
  operationId: string;
  summary: string;
  params: TObject;
  querystring?: TObject;
  /** The success answer's schema (serialization is the cached text's; this documents it). */
  response: TSchema;
  /**
   * For answers that hold a time (the changes feed's cursor): until when (epoch ms) an answer
   * built now stays the same bytes. The cached answer carries it, and past it both paths build
   * the answer anew.
   */
  freshUntil?(deps: DeliveryDeps, ask: DeliveryAsk): number;
  /** The answer in the preview perspective, for preview credentials: built anew every time. */
  preview: {
    /** Its schema, when it differs from the content key's answer. */
    response?: TSchema;
  } & (
    | {
        ready(
          deps: DeliveryDeps,
          project: ProjectRow,
          ask: DeliveryAsk,
          reader: PreviewReader,
        ): Promise<DataJson>;
      }
    | StreamedAnswer
  );
  /** The answer's `data` (and `pagination`); the HTTP layer puts the envelope around it. */
  answer:
    | { ready(deps: DeliveryDeps, project: ProjectRow, ask: DeliveryAsk): Promise<DataJson> }
    | StreamedAnswer;
}

/** An answer too large to hold whole (the sitemap), sent as it is read. */
export interface StreamedAnswer {
  /** Checked before the first byte: once streaming, an error can no longer be an answer. */
  before(project: ProjectRow): void;
  /** The `data` as JSON text, in chunks. */
  stream(deps: DeliveryDeps, project: ProjectRow): AsyncIterable<string>;
}

export const DELIVERY_ROUTES: readonly DeliveryRoute[] = [
  {
    url: '/api/v1/projects/:projectId/content',
    operationId: 'listContent',
    summary: 'List published articles, newest first',
    credentials: ['content', 'preview'],
    params: ProjectParams,
    querystring: PageQuerySchema,
    response: SuccessPage(ArticleListItemSchema),
    preview: {
      response: SuccessPage(PreviewListItemSchema),
      ready: (deps, project, { query }) =>
        listPreviewArticles(deps, project, { page: query.page as number, limit: query.limit as number }),
    },
    what: ({ query }) => `list:${query.page}:${query.limit}`,
    answer: {
      ready: (deps, project, { query }) =>
        listPublishedArticles(deps, project, {
          page: query.page as number,
          limit: query.limit as number,
        }),
    },
  },
  {
    url: '/api/v1/projects/:projectId/content/by-slug/:slug',
    operationId: 'getContentBySlug',
    summary: 'Read one published article by its slug, with related articles',
    credentials: ['content', 'preview', 'preview-token'],
    params: Type.Object({ projectId: Type.String(), slug: Type.String() }),
    response: Success(ArticleSchema),
    preview: {
      response: Success(PreviewArticleSchema),
      ready: (deps, project, { params }, reader) =>
        getPreviewArticle(deps, project, params.slug!, reader.articleId),
    },
    what: ({ params }) => `slug:${params.slug}`,
    answer: { ready: (deps, project, { params }) => getPublishedArticle(deps, project, params.slug!) },
  },
  {
    url: '/api/v1/projects/:projectId/content/sitemap',
    operationId: 'getSitemap',
    summary: 'Every published article: its URL on the website and last modification',
    credentials: ['content', 'preview'],
    params: ProjectParams,
    response: Success(Type.Array(SitemapEntrySchema)),
    // Published articles only, as for a content key; streamed for a preview key too, since a
    // preview answer is built for each request and a whole large sitemap per request ran a
    // process out of memory under a few concurrent readers.
    preview: { before: (project) => void requireWebsiteUrl(project), stream: streamSitemap },
    what: () => 'sitemap',
    answer: { before: (project) => void requireWebsiteUrl(project), stream: streamSitemap },
  },
  {
    url: '/api/v1/projects/:projectId/content/changes',
    operationId: 'listContentChanges',
    summary: 'What changed since a cursor: upserts and deletes in commit order, to keep a replica',
    credentials: ['content', 'preview'],
    params: ProjectParams,
    querystring: ChangesQuerySchema,
    response: Success(ChangesPageSchema),
    preview: {
      response: Success(PreviewChangesPageSchema),
      ready: (deps, project, { query }) =>
        listPreviewChanges(deps, project, {
          since: query.since as string | undefined,
          limit: query.limit as number,
        }),
    },
    // An absent `since` and an empty one must not share a key: the fast path takes a string as
    // given, and would answer the invalid `since=` from the first sync's entry.
    what: ({ query }) =>
      query.since === undefined ? `changes:${query.limit}` : `changes:${query.limit}:${query.since}`,
    freshUntil: (deps, { params, query }) =>
      changesFreshUntil(deps, params.projectId!, query.since as string | undefined),
    answer: {
      ready: (deps, project, { query }) =>
        listChanges(deps, project, {
          since: query.since as string | undefined,
          limit: query.limit as number,
        }),
    },
  },
];
