import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  ArticleListItemSchema,
  ArticleSchema,
  PageQuerySchema,
  SitemapEntrySchema,
  Success,
  SuccessPage,
} from '@folio/schema';
import { Type } from '@sinclair/typebox';
import type { ProjectRow } from '../../db/tables.ts';
import { deliveryCacheKey, type ResponseCache } from '../../http/response-cache.ts';
import { sendJson } from '../../http/send-json.ts';
import { sendJsonStream } from '../../http/send-stream.ts';
import {
  type DeliveryDeps,
  getPublishedArticleBody,
  listPublishedArticlesBody,
  requireWebsiteUrl,
  streamSitemapBody,
} from '../../services/delivery.ts';
import type { KeyChecks } from '../../services/key-checks.ts';
import { readBearerToken } from '../../services/tokens.ts';
import { errorResponses, ProjectParams } from '../common.ts';

const tags = ['Delivery'];
const security = [{ contentKey: [] }];

/** The delivery API: published articles of one project, for the content key of that project. */
export function deliveryRoutes(
  deps: DeliveryDeps,
  cache: ResponseCache,
  keys: KeyChecks,
): FastifyPluginAsyncTypebox {
  return async (app) => {
    const projects = new WeakMap<object, ProjectRow>();
    // Authentication runs before the query is validated, so nothing is revealed without a key.
    app.addHook('onRequest', async (request) => {
      const { projectId } = request.params as { projectId: string };
      const key = await keys.authenticate(readBearerToken(request.headers.authorization), projectId);
      projects.set(request, key.project);
    });
    const projectOf = (request: object) => projects.get(request)!;
    const keyOf = (request: object, what: string) => {
      const project = projectOf(request);
      return deliveryCacheKey(project.id, project.content_version, what);
    };

    app.get(
      '/api/v1/projects/:projectId/content',
      {
        schema: {
          tags,
          security,
          summary: 'List published articles, newest first',
          params: ProjectParams,
          querystring: PageQuerySchema,
          response: { 200: SuccessPage(ArticleListItemSchema), ...errorResponses },
        },
      },
      async (request, reply) => {
        const { page = 1, limit = 20 } = request.query;
        return sendJson(request, reply, cache, keyOf(request, `list:${page}:${limit}`), () =>
          listPublishedArticlesBody(deps, projectOf(request), { page, limit }),
        );
      },
    );

    app.get(
      '/api/v1/projects/:projectId/content/by-slug/:slug',
      {
        schema: {
          tags,
          security,
          summary: 'Read one published article by its slug, with related articles',
          params: Type.Object({ projectId: Type.String(), slug: Type.String() }),
          response: { 200: Success(ArticleSchema), ...errorResponses },
        },
      },
      async (request, reply) =>
        sendJson(request, reply, cache, keyOf(request, `slug:${request.params.slug}`), () =>
          getPublishedArticleBody(deps, projectOf(request), request.params.slug),
        ),
    );

    app.get(
      '/api/v1/projects/:projectId/content/sitemap',
      {
        schema: {
          tags,
          security,
          summary: 'Every published article: its URL on the website and last modification',
          params: ProjectParams,
          response: { 200: Success(Type.Array(SitemapEntrySchema)), ...errorResponses },
        },
      },
      async (request, reply) => {
        const project = projectOf(request);
        // Checked before the first byte: once streaming, an error can no longer be an answer.
        requireWebsiteUrl(project);
        return sendJsonStream(request, reply, cache, keyOf(request, 'sitemap'), () =>
          streamSitemapBody(deps, project),
        );
      },
    );
  };
}
