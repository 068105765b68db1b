import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/tables.ts';
import { AppError } from '../errors.ts';
import { allowAnyOrigin } from '../http/cors.ts';
import { errorResponses } from './common.ts';

const Status = Type.Object({ success: Type.Literal(true), data: Type.Object({ status: Type.String() }) });

/**
 * Liveness (the process answers) and readiness (the database answers), readable from any origin
 * like the rest of the public API (a status page in a browser).
 */
export function healthRoutes(db: Kysely<Database>): FastifyPluginAsyncTypebox {
  return async (app) => {
    allowAnyOrigin(app, ['/healthz', '/readyz']);
    app.get(
      '/healthz',
      {
        schema: {
          tags: ['Health'],
          operationId: 'getHealth',
          summary: 'The process is up',
          security: [],
          response: { 200: Status, ...errorResponses },
        },
      },
      async () => ({ success: true as const, data: { status: 'ok' } }),
    );
    app.get(
      '/readyz',
      {
        schema: {
          tags: ['Health'],
          operationId: 'getReadiness',
          summary: 'The database answers',
          security: [],
          response: { 200: Status, ...errorResponses },
        },
      },
      async (request) => {
        try {
          await sql`select 1`.execute(db);
        } catch (error) {
          request.log.warn({ err: error }, 'database is not answering');
          throw new AppError('unavailable', 'The database is not answering.');
        }
        return { success: true as const, data: { status: 'ready' } };
      },
    );
  };
}
