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
import { authenticateContentKey } from '../../services/content-keys.ts';
import { getPublishedArticle, getSitemap, listPublishedArticles } from '../../services/delivery.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import { readBearerToken } from '../../services/tokens.ts';
import { errorResponses, ProjectParams } from '../common.ts';

const tags = ['Delivery'];
const security = [{ contentKey: [] }];

/** The delivery API: published articles of one project, for the content key of that project. */
export function deliveryRoutes(deps: ServiceDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const projects = new WeakMap<object, ProjectRow>();
    // Authentication runs before the query is validated, so nothing is revealed without a key.
    app.addHook('onRequest', async (request) => {
      const { projectId } = request.params as { projectId: string };
      const token = readBearerToken(request.headers.authorization);
      projects.set(request, await authenticateContentKey(deps, token, projectId));
    });
    const projectOf = (request: object) => projects.get(request)!;

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
      async (request) => {
        const { page = 1, limit = 20 } = request.query;
        const result = await listPublishedArticles(deps, projectOf(request), { page, limit });
        return { success: true as const, ...result };
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
      async (request) => ({
        success: true as const,
        data: await getPublishedArticle(deps, projectOf(request), request.params.slug),
      }),
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
      async (request) => ({ success: true as const, data: await getSitemap(deps, projectOf(request)) }),
    );
  };
}
