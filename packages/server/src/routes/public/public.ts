import cors from '@fastify/cors';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ArticleSchema, BLOCKS_SCHEMA_PATH, type JsonSchemaDocument, Success } from '@folio/schema';
import { Type } from '@sinclair/typebox';
import { answerNoRoute } from '../../http/error-handler.ts';
import type { ResponseCache } from '../../http/response-cache.ts';
import { sendJson } from '../../http/send-json.ts';
import { buildFixtureArticle } from '../../services/fixture.ts';
import { errorResponses } from '../common.ts';

const tags = ['Public'];
const PREFIX = '/public/v1';
const JsonDocument = Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true });

/** Resources anyone may read, from any origin: the example article and the published schemas. */
export function publicRoutes(options: {
  blocksSchema: JsonSchemaDocument;
  cache: ResponseCache;
}): FastifyPluginAsyncTypebox {
  const fixture = buildFixtureArticle();
  const routes: FastifyPluginAsyncTypebox = async (app) => {
    // Not strict: an OPTIONS without a preflight's headers would get the plugin's plain-text
    // 400, the one answer outside the contract's error shape; it gets the preflight's 204.
    await app.register(cors, { origin: '*', methods: ['GET', 'HEAD'], strictPreflight: false });
    // A path under the prefix that no route has is answered here, so with the plugin's CORS
    // header as its preflight promised: a page on another origin can read the 404.
    app.setNotFoundHandler(answerNoRoute);

    app.get(
      '/fixtures/article',
      {
        schema: {
          tags,
          operationId: 'getFixtureArticle',
          summary: 'An example article with every block type',
          security: [],
          response: { 200: Success(ArticleSchema), ...errorResponses },
        },
      },
      async (request, reply) =>
        sendJson(request, reply, options.cache, 'public:fixture', async () =>
          JSON.stringify({ success: true, data: fixture }),
        ),
    );

    app.get(
      BLOCKS_SCHEMA_PATH.slice(PREFIX.length),
      {
        schema: {
          tags,
          operationId: 'getBlocksSchema',
          summary: 'The JSON Schema (draft 2020-12) of an article’s blocks array',
          security: [],
          response: { 200: JsonDocument, ...errorResponses },
        },
      },
      async (request, reply) =>
        sendJson(request, reply, options.cache, 'public:blocks-schema', async () =>
          JSON.stringify(options.blocksSchema),
        ),
    );

    app.get(
      '/openapi.json',
      {
        schema: {
          tags,
          operationId: 'getOpenApiDocument',
          summary: 'This API as OpenAPI 3.1',
          security: [],
          response: { 200: JsonDocument, ...errorResponses },
        },
      },
      async (request, reply) =>
        sendJson(request, reply, options.cache, 'public:openapi', async () => JSON.stringify(app.swagger())),
    );
  };
  // Under a prefix because @fastify/cors answers preflights with an OPTIONS route on `*`: at the
  // root it would invite cross-origin calls to the delivery and management APIs as well.
  return async (root) => {
    await root.register(routes, { prefix: PREFIX });
  };
}
