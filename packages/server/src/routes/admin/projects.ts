import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { NewProjectSchema, ProjectPatchSchema, ProjectSchema, Success, SuccessPage } from '@folio/schema';
import type { ServiceDeps } from '../../services/deps.ts';
import { MAX_PAGE_SIZE, pageOf } from '../../services/pagination.ts';
import { createProject, getProject, listProjects, updateProject } from '../../services/projects.ts';
import { AdminListQuery, errorResponses, ProjectParams } from '../common.ts';

const tags = ['Projects'];

export function projectRoutes(deps: ServiceDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/admin/v1/projects',
      {
        schema: {
          tags,
          operationId: 'createProject',
          summary: 'Create a project with its site settings',
          body: NewProjectSchema,
          response: { 201: Success(ProjectSchema), ...errorResponses },
        },
      },
      async (request, reply) => {
        reply.code(201);
        return { success: true as const, data: await createProject(deps, request.body) };
      },
    );

    app.get(
      '/admin/v1/projects',
      {
        schema: {
          tags,
          operationId: 'listProjects',
          summary: 'List projects, oldest first',
          querystring: AdminListQuery,
          response: { 200: SuccessPage(ProjectSchema), ...errorResponses },
        },
      },
      async (request) => {
        const { page = 1, limit = MAX_PAGE_SIZE } = request.query;
        return { success: true as const, ...pageOf(await listProjects(deps), { page, limit }) };
      },
    );

    app.get(
      '/admin/v1/projects/:projectId',
      {
        schema: {
          tags,
          operationId: 'getProject',
          summary: 'Read a project',
          params: ProjectParams,
          response: { 200: Success(ProjectSchema), ...errorResponses },
        },
      },
      async (request) => ({ success: true as const, data: await getProject(deps, request.params.projectId) }),
    );

    app.patch(
      '/admin/v1/projects/:projectId',
      {
        schema: {
          tags,
          operationId: 'updateProject',
          summary: 'Rename a project or change its site settings',
          params: ProjectParams,
          body: ProjectPatchSchema,
          response: { 200: Success(ProjectSchema), ...errorResponses },
        },
      },
      async (request) => ({
        success: true as const,
        data: await updateProject(deps, request.params.projectId, request.body),
      }),
    );
  };
}
