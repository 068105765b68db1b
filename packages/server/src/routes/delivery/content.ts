import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { AppError } from '../../errors.ts';
import { readBearerToken } from '../../http/bearer.ts';
import { SUCCESS_CLOSE, SUCCESS_OPEN, successText } from '../../http/envelope.ts';
import type { CredentialKind } from '../../http/fast-path.ts';
import type { Metrics } from '../../http/metrics.ts';
import type { RequestAccounting } from '../../http/request-accounting.ts';
import { deliveryCacheKey, type ResponseCache } from '../../http/response-cache.ts';
import { sendJson, sendJsonStream, sendPrivateJsonText } from '../../http/send-json.ts';
import { sendPrivateJsonStream } from '../../http/send-stream.ts';
import { type AuthenticatedKey, requireKeyProject } from '../../services/content-keys.ts';
import type { DeliveryDeps } from '../../services/delivery.ts';
import type { KeyChecks } from '../../services/key-checks.ts';
import {
  identifyPreviewToken,
  PREVIEW_TOKEN_PREFIX,
  type PreviewTokenReader,
  previewTokenReader,
} from '../../services/preview-links.ts';
import { errorResponses } from '../common.ts';
import { DELIVERY_ROUTES, type DeliveryAsk } from './route-table.ts';

const tags = ['Delivery'];

/** A delivery request's credential, checked: a content or preview key, or a preview token. */
type Reader = AuthenticatedKey | (PreviewTokenReader & { kind: 'preview-token' });
// The OpenAPI security scheme of each kind of credential (app.ts declares them).
const SECURITY_SCHEMES: Record<CredentialKind, Record<string, string[]>> = {
  content: { contentKey: [] },
  preview: { previewKey: [] },
  'preview-token': { previewToken: [] },
};

/**
 * The delivery API: published articles of one project, for the content key of that project.
 * Every route comes from the route table, which the fast path is built from too.
 */
export function deliveryRoutes(
  deps: DeliveryDeps,
  cache: ResponseCache,
  keys: KeyChecks,
  accounting: RequestAccounting,
  metrics: Metrics,
): FastifyPluginAsyncTypebox {
  return async (app) => {
    const readers = new WeakMap<object, Reader>();
    const routes = new Map(DELIVERY_ROUTES.map((route) => [route.url, route]));
    // Authentication runs before the query is validated, so nothing is revealed without a key.
    app.addHook('onRequest', async (request, reply) => {
      const { projectId } = request.params as { projectId: string };
      const bearer = readBearerToken(request.headers.authorization);
      const credential = bearer?.startsWith(PREVIEW_TOKEN_PREFIX)
        ? await identifyPreviewToken(deps, bearer)
        : await keys.identify(bearer, projectId);
      // A genuine credential: every request of it counts against its budget, and what it is
      // refused from here on (another project, another article) is no failed authentication.
      accounting.authenticated(request);
      await accounting.spend(request, reply, credential.keyId);
      const reader: Reader =
        'articleId' in credential
          ? { kind: 'preview-token', ...(await previewTokenReader(deps, credential, projectId)) }
          : requireKeyProject(credential, projectId);
      const route = routes.get(request.routeOptions.url ?? '');
      if (route && !route.credentials.includes(reader.kind)) {
        throw new AppError('unauthorized', 'A preview token reads only its own article, by its slug.');
      }
      readers.set(request, reader);
    });
    const looked = (hit: boolean) => (hit ? metrics.cacheHit() : metrics.cacheMiss());

    for (const route of DELIVERY_ROUTES) {
      app.get(
        route.url,
        {
          schema: {
            tags,
            security: route.credentials.map((kind) => SECURITY_SCHEMES[kind]),
            operationId: route.operationId,
            summary: route.summary,
            params: route.params,
            ...(route.querystring ? { querystring: route.querystring } : {}),
            response: {
              200: route.preview.response
                ? Type.Union([route.response, route.preview.response], {
                    description: route.credentials.includes('preview-token')
                      ? 'For a content key; for a preview key or token, the preview perspective'
                      : 'For a content key; for a preview key, the preview perspective',
                  })
                : route.response,
              ...errorResponses,
            },
          },
        },
        async (request, reply) => {
          const reader = readers.get(request)!;
          const project = reader.project;
          const ask: DeliveryAsk = {
            params: request.params as Record<string, string>,
            query: (request.query ?? {}) as Record<string, unknown>,
          };
          const key = deliveryCacheKey(project.id, project.content_version, route.what(ask));
          if (reader.kind !== 'content') {
            const { preview } = route;
            if ('stream' in preview) {
              preview.before(project);
              return sendPrivateJsonStream(request, reply, key, () =>
                successStream(preview.stream(deps, project)),
              );
            }
            const articleId = 'articleId' in reader ? reader.articleId : undefined;
            const answer = await preview.ready(deps, project, ask, articleId ? { articleId } : {});
            return sendPrivateJsonText(reply, successText(answer.data, answer.pagination));
          }
          const { answer } = route;
          if ('ready' in answer) {
            // An answer that holds a time is kept only until it would be made differently.
            const now = deps.now();
            const expiresAt = route.freshUntil?.(deps, ask);
            const kept = expiresAt === undefined || now < expiresAt;
            const build = async () => {
              const { data, pagination } = await answer.ready(deps, project, ask);
              return successText(data, pagination);
            };
            const timed = expiresAt === undefined ? undefined : { now, expiresAt };
            return sendJson(request, reply, cache, kept ? key : undefined, build, looked, timed);
          }
          answer.before(project);
          return sendJsonStream(
            request,
            reply,
            cache,
            key,
            () => successStream(answer.stream(deps, project)),
            looked,
          );
        },
      );
    }
  };
}

/** A success body around `data` streamed in chunks. */
async function* successStream(data: AsyncIterable<string>): AsyncGenerator<string> {
  yield SUCCESS_OPEN;
  yield* data;
  yield SUCCESS_CLOSE;
}
