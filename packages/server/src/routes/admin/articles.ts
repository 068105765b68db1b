import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  AdminArticleSchema,
  ArticleIdSchema,
  articleInputSchema,
  type BlocksSchema,
  draftInputSchema,
  type JsonSchemaDocument,
  PreviewLinkSchema,
  SchedulePatchSchema,
  Success,
  SuccessPage,
} from '@folio/schema';
import { Type } from '@sinclair/typebox';
import { successText } from '../../http/envelope.ts';
import { sendJsonText } from '../../http/send-json.ts';
import {
  deleteArticle,
  getArticle,
  listArticles,
  publishArticle,
  unpublishArticle,
  upsertArticle,
} from '../../services/articles.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import { discardDraft, saveDraft } from '../../services/drafts.ts';
import { MAX_PAGE_SIZE } from '../../services/pagination.ts';
import { createPreviewLink } from '../../services/preview-links.ts';
import { scheduleArticle } from '../../services/schedules.ts';
import { AdminListQuery, errorResponses, NoContent, ProjectParams } from '../common.ts';

const tags = ['Articles'];
const ArticleParams = Type.Object({ projectId: Type.String(), articleId: ArticleIdSchema });

export function articleRoutes(
  deps: ServiceDeps,
  blocksSchema: JsonSchemaDocument,
): FastifyPluginAsyncTypebox {
  // Ingest validates blocks against the very document served at /public/v1/schema/blocks.json.
  const blocks = Type.Unsafe<typeof BlocksSchema.static>({ $ref: blocksSchema.$id });
  const ArticleInputSchema = articleInputSchema(blocks);
  // A draft is validated exactly as an article: the same block schema, slug and link rules.
  const DraftInputSchema = draftInputSchema(blocks);
  const one = { 200: Success(AdminArticleSchema), ...errorResponses };

  return async (app) => {
    app.put(
      '/admin/v1/projects/:projectId/articles/:articleId',
      {
        schema: {
          tags,
          operationId: 'putArticle',
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
          operationId: 'listArticles',
          summary: 'List all articles, published or not, most recently updated first',
          params: ProjectParams,
          querystring: AdminListQuery,
          response: { 200: SuccessPage(AdminArticleSchema), ...errorResponses },
        },
      },
      async (request, reply) => {
        const { page = 1, limit = MAX_PAGE_SIZE } = request.query;
        const { data, pagination } = await listArticles(deps, request.params.projectId, { page, limit });
        // Written from the stored JSON (the schema documents it): a page of large articles is
        // streamed rather than held.
        return sendJsonText(reply, successText(data, pagination));
      },
    );

    app.get(
      '/admin/v1/projects/:projectId/articles/:articleId',
      {
        schema: {
          tags,
          operationId: 'getArticle',
          summary: 'Read an article',
          params: ArticleParams,
          response: one,
        },
      },
      async (request) => ({
        success: true as const,
        data: await getArticle(deps, request.params.projectId, request.params.articleId),
      }),
    );

    app.post(
      '/admin/v1/projects/:projectId/articles/:articleId/publish',
      {
        schema: {
          tags,
          operationId: 'publishArticle',
          summary: 'Publish an article',
          params: ArticleParams,
          response: one,
        },
      },
      async (request) => ({
        success: true as const,
        data: await publishArticle(deps, request.params.projectId, request.params.articleId),
      }),
    );

    app.post(
      '/admin/v1/projects/:projectId/articles/:articleId/unpublish',
      {
        schema: {
          tags,
          operationId: 'unpublishArticle',
          summary: 'Unpublish an article',
          params: ArticleParams,
          response: one,
        },
      },
      async (request) => ({
        success: true as const,
        data: await unpublishArticle(deps, request.params.projectId, request.params.articleId),
      }),
    );

    app.patch(
      '/admin/v1/projects/:projectId/articles/:articleId',
      {
        schema: {
          tags,
          operationId: 'scheduleArticle',
          summary: 'Schedule publishing or unpublishing; a time at or before now applies at once',
          params: ArticleParams,
          body: SchedulePatchSchema,
          response: one,
        },
      },
      async (request) => ({
        success: true as const,
        data: await scheduleArticle(deps, request.params.projectId, request.params.articleId, request.body),
      }),
    );

    app.put(
      '/admin/v1/projects/:projectId/articles/:articleId/draft',
      {
        schema: {
          tags,
          operationId: 'putDraft',
          summary: 'Save the draft: a working version content keys never see; creates the article if new',
          params: ArticleParams,
          body: DraftInputSchema,
          response: { 201: Success(AdminArticleSchema), ...one },
        },
      },
      async (request, reply) => {
        const { projectId, articleId } = request.params;
        const { article, created } = await saveDraft(deps, projectId, articleId, request.body);
        reply.code(created ? 201 : 200);
        return { success: true as const, data: article };
      },
    );

    app.delete(
      '/admin/v1/projects/:projectId/articles/:articleId/draft',
      {
        schema: {
          tags,
          operationId: 'deleteDraft',
          summary: 'Discard the draft; what the article serves stays',
          params: ArticleParams,
          response: { 204: NoContent, ...errorResponses },
        },
      },
      async (request, reply) => {
        await discardDraft(deps, request.params.projectId, request.params.articleId);
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/admin/v1/projects/:projectId/articles/:articleId/preview-link',
      {
        schema: {
          tags,
          operationId: 'createPreviewLink',
          summary: "Make a one-hour link to the article's draft on the site, from the project's previewUrl",
          params: ArticleParams,
          response: { 201: Success(PreviewLinkSchema), ...errorResponses },
        },
      },
      async (request, reply) => {
        const link = await createPreviewLink(deps, request.params.projectId, request.params.articleId);
        reply.code(201);
        return { success: true as const, data: link };
      },
    );

    app.delete(
      '/admin/v1/projects/:projectId/articles/:articleId',
      {
        schema: {
          tags,
          operationId: 'deleteArticle',
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
