import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  ContentKeySchema,
  CreatedContentKeySchema,
  NewContentKeySchema,
  Success,
  SuccessPage,
} from '@folio/schema';
import { Type } from '@sinclair/typebox';
import { createContentKey, listContentKeys, revokeContentKey } from '../../services/content-keys.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import { MAX_PAGE_SIZE, pageOf } from '../../services/pagination.ts';
import { AdminListQuery, errorResponses, NoContent, ProjectParams } from '../common.ts';

const tags = ['Content keys'];

export function contentKeyRoutes(deps: ServiceDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/admin/v1/projects/:projectId/keys',
      {
        schema: {
          tags,
          operationId: 'createContentKey',
          summary: 'Create a content or preview key; the answer is the only time the key is shown',
          params: ProjectParams,
          body: NewContentKeySchema,
          response: { 201: Success(CreatedContentKeySchema), ...errorResponses },
        },
      },
      async (request, reply) => {
        reply.code(201);
        return {
          success: true as const,
          data: await createContentKey(deps, request.params.projectId, request.body.name, request.body.kind),
        };
      },
    );

    app.get(
      '/admin/v1/projects/:projectId/keys',
      {
        schema: {
          tags,
          operationId: 'listContentKeys',
          summary: 'List the working content and preview keys, without secrets',
          params: ProjectParams,
          querystring: AdminListQuery,
          response: { 200: SuccessPage(ContentKeySchema), ...errorResponses },
        },
      },
      async (request) => {
        const { page = 1, limit = MAX_PAGE_SIZE } = request.query;
        const keys = await listContentKeys(deps, request.params.projectId);
        return { success: true as const, ...pageOf(keys, { page, limit }) };
      },
    );

    app.delete(
      '/admin/v1/projects/:projectId/keys/:keyId',
      {
        schema: {
          tags,
          operationId: 'revokeContentKey',
          summary: 'Revoke a content key; it stops working on the next request',
          params: Type.Object({ projectId: Type.String(), keyId: Type.String() }),
          response: { 204: NoContent, ...errorResponses },
        },
      },
      async (request, reply) => {
        await revokeContentKey(deps, request.params.projectId, request.params.keyId);
        return reply.code(204).send(null);
      },
    );
  };
}
