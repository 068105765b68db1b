import cors from '@fastify/cors';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ArticleSchema, BLOCKS_SCHEMA_PATH, type JsonSchemaDocument, Success } from '@folio/schema';
import { Type } from '@sinclair/typebox';
import { buildFixtureArticle } from '../../services/fixture.ts';
import { errorResponses } from '../common.ts';

const tags = ['Public'];
const JsonDocument = Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true });

/**
 * Resources anyone may read, from any origin: the example article and the published schemas.
 * Registered under the `/public` prefix so CORS (and its catch-all preflight route) stays there.
 */
export function publicRoutes(options: { blocksSchema: JsonSchemaDocument }): FastifyPluginAsyncTypebox {
  const fixture = buildFixtureArticle();
  return async (app) => {
    await app.register(cors, { origin: '*', methods: ['GET', 'HEAD'] });

    app.get(
      '/v1/fixtures/article',
      {
        schema: {
          tags,
          summary: 'An example article with every block type',
          response: { 200: Success(ArticleSchema), ...errorResponses },
        },
      },
      async () => ({ success: true as const, data: fixture }),
    );

    app.get(
      BLOCKS_SCHEMA_PATH.replace(/^\/public/, ''),
      {
        schema: {
          tags,
          summary: 'The JSON Schema (draft 2020-12) of an article’s blocks array',
          response: { 200: JsonDocument },
        },
      },
      async () => options.blocksSchema,
    );

    app.get(
      '/v1/openapi.json',
      {
        schema: { tags, summary: 'This API as OpenAPI 3.1', response: { 200: JsonDocument } },
      },
      async () => app.swagger() as unknown as Record<string, unknown>,
    );
  };
}
