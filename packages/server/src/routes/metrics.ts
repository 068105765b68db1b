import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { readBearerToken } from '../http/bearer.ts';
import type { Metrics } from '../http/metrics.ts';
import { type AdminCredential, verifyAdminToken } from '../services/admin-auth.ts';
import { errorResponses } from './common.ts';

/** `GET /metrics`: Prometheus's text format, for the admin token only. */
export function metricsRoutes(metrics: Metrics, credential: AdminCredential): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/metrics',
      {
        schema: {
          tags: ['Health'],
          operationId: 'getMetrics',
          summary: 'Prometheus metrics (text format 0.0.4), with the admin token',
          security: [{ adminToken: [] }],
          response: {
            // Not JSON: a generated client must read this answer as text.
            200: {
              description: 'Prometheus text exposition format',
              content: { 'text/plain': { schema: Type.String() } },
            },
            ...errorResponses,
          },
        },
        onRequest: async (request) => {
          verifyAdminToken(credential, readBearerToken(request.headers.authorization));
        },
      },
      async (_request, reply) => {
        reply.header('content-type', metrics.contentType);
        reply.header('cache-control', 'no-store');
        return metrics.render();
      },
    );
  };
}
