import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ProjectRow } from '../../db/tables.ts';
import { readBearerToken } from '../../http/bearer.ts';
import type { Metrics } from '../../http/metrics.ts';
import type { RequestAccounting } from '../../http/request-accounting.ts';
import { deliveryCacheKey, type ResponseCache } from '../../http/response-cache.ts';
import { sendJson } from '../../http/send-json.ts';
import { sendJsonStream } from '../../http/send-stream.ts';
import type { DeliveryDeps } from '../../services/delivery.ts';
import type { KeyChecks } from '../../services/key-checks.ts';
import { errorResponses } from '../common.ts';
import { DELIVERY_ROUTES, type DeliveryAsk } from './route-table.ts';

const tags = ['Delivery'];
const security = [{ contentKey: [] }];

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
    const projects = new WeakMap<object, ProjectRow>();
    // Authentication runs before the query is validated, so nothing is revealed without a key.
    app.addHook('onRequest', async (request, reply) => {
      const { projectId } = request.params as { projectId: string };
      const key = await keys.authenticate(readBearerToken(request.headers.authorization), projectId);
      await accounting.spend(request, reply, key.keyId);
      projects.set(request, key.project);
    });
    const looked = (hit: boolean) => (hit ? metrics.cacheHit() : metrics.cacheMiss());

    for (const route of DELIVERY_ROUTES) {
      app.get(
        route.url,
        {
          schema: {
            tags,
            security,
            summary: route.summary,
            params: route.params,
            ...(route.querystring ? { querystring: route.querystring } : {}),
            response: { 200: route.response, ...errorResponses },
          },
        },
        async (request, reply) => {
          const project = projects.get(request)!;
          const ask: DeliveryAsk = {
            params: request.params as Record<string, string>,
            query: (request.query ?? {}) as Record<string, unknown>,
          };
          const key = deliveryCacheKey(project.id, project.content_version, route.what(ask));
          const { answer } = route;
          if ('ready' in answer) {
            // An answer that holds a time is cached only while it would be made the same again.
            const fresh = route.freshUntil === undefined || deps.now() < route.freshUntil(ask);
            const build = () => answer.ready(deps, project, ask);
            return sendJson(request, reply, cache, fresh ? key : undefined, build, looked);
          }
          answer.before(project);
          return sendJsonStream(request, reply, cache, key, () => answer.stream(deps, project), looked);
        },
      );
    }
  };
}
