import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  AdminArticleSchema,
  ArticleIdSchema,
  articleInputSchema,
  type BlocksSchema,
  type JsonSchemaDocument,
  Success,
  SuccessPage,
} from '@folio/schema';
import { Type } from '@sinclair/typebox';
import {
  deleteArticle,
  getArticle,
  listArticles,
  publishArticle,
  unpublishArticle,
  upsertArticle,
} from '../../services/articles.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import { MAX_PAGE_SIZE } from '../../services/pagination.ts';
import { AdminListQuery, errorResponses, NoContent, ProjectParams } from '../common.ts';

const tags = ['Articles'];
const ArticleParams = Type.Object({ projectId: Type.String(), articleId: ArticleIdSchema });

export function articleRoutes(
  deps: ServiceDeps,
  blocksSchema: JsonSchemaDocument,
): FastifyPluginAsyncTypebox {
  // Ingest validates blocks against the very document served at /public/v1/schema/blocks.json.
  const ArticleInputSchema = articleInputSchema(
    Type.Unsafe<typeof BlocksSchema.static>({ $ref: blocksSchema.$id }),
  );
  const one = { 200: Success(AdminArticleSchema), ...errorResponses };

  return async (app) => {
    app.put(
      '/admin/v1/projects/:projectId/articles/:articleId',
      {
        schema: {
          tags,
          summary: 'Create or replace an article by its caller-chosen id',
          params: ArticleParams,
          body: ArticleInputSchema,
          response: { 201: Success(AdminArticleSchema), ...one },
        },
      },
      async (request, reply) => {
        const { projectId, articleId } = request.params;
        const { article, created } = await upsertArticle(deps, projectId, articleId, request.body);
        reply.code(created ? 201 : 200);
        return { success: true as const, data: article };
      },
    );

    app.get(
      '/admin/v1/projects/:projectId/articles',
      {
        schema: {
          tags,
          summary: 'List all articles, published or not, most recently updated first',
          params: ProjectParams,
          querystring: AdminListQuery,
          response: { 200: SuccessPage(AdminArticleSchema), ...errorResponses },
        },
      },
      async (request) => {
        const { page = 1, limit = MAX_PAGE_SIZE } = request.query;
        return {
          success: true as const,
          ...(await listArticles(deps, request.params.projectId, { page, limit })),
        };
      },
    );

    app.get(
      '/admin/v1/projects/:projectId/articles/:articleId',
      { schema: { tags, summary: 'Read an article', params: ArticleParams, response: one } },
      async (request) => ({
        success: true as const,
        data: await getArticle(deps, request.params.projectId, request.params.articleId),
      }),
    );

    app.post(
      '/admin/v1/projects/:projectId/articles/:articleId/publish',
      { schema: { tags, summary: 'Publish an article', params: ArticleParams, response: one } },
      async (request) => ({
        success: true as const,
        data: await publishArticle(deps, request.params.projectId, request.params.articleId),
      }),
    );

    app.post(
      '/admin/v1/projects/:projectId/articles/:articleId/unpublish',
      { schema: { tags, summary: 'Unpublish an article', params: ArticleParams, response: one } },
      async (request) => ({
        success: true as const,
        data: await unpublishArticle(deps, request.params.projectId, request.params.articleId),
      }),
    );

    app.delete(
      '/admin/v1/projects/:projectId/articles/:articleId',
      {
        schema: {
          tags,
          summary: 'Delete an article',
          params: ArticleParams,
          response: { 204: NoContent, ...errorResponses },
        },
      },
      async (request, reply) => {
        await deleteArticle(deps, request.params.projectId, request.params.articleId);
        return reply.code(204).send(null);
      },
    );
  };
}
