import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/tables.ts';
import { withDeadline } from '../deadline.ts';
import { AppError } from '../errors.ts';
import { createFailureStreak } from '../failure-streak.ts';
import { allowAnyOrigin } from '../http/cors.ts';
import { describeAnswer } from '../http/request-log.ts';
import { errorResponses } from './common.ts';

// A load balancer's health check gives up after a few seconds (Kubernetes' probe after one,
// by default): a frozen database must read as not ready before that, not after the
// FOLIO_DATABASE_TIMEOUT that requests wait.
const READY_WITHIN_MS = 2_000;

const Status = Type.Object({ success: Type.Literal(true), data: Type.Object({ status: Type.String() }) });

/**
 * Liveness (the process answers) and readiness (the database answers), readable from any origin
 * like the rest of the public API (a status page in a browser).
 */
export function healthRoutes(db: Kysely<Database>): FastifyPluginAsyncTypebox {
  return async (app) => {
    allowAnyOrigin(app, ['/healthz', '/readyz']);
    // A closing server still answers the requests already on its connections; a balancer that
    // checks readiness on one must hear that this process is going, not that it is ready.
    let closing = false;
    app.addHook('preClose', async () => {
      closing = true;
    });
    // A balancer probes several times a second: an outage is one line when it starts (and a
    // reminder now and then), one when it ends, and each probe's own line stays at info.
    const outage = createFailureStreak({
      failing: (error, tries) =>
        app.log.warn({ err: error, tries }, 'readiness: the database is not answering'),
      recovered: (tries) => app.log.warn({ tries }, 'readiness: the database answers again'),
    });
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
        if (closing) throw new AppError('unavailable', 'This process is shutting down.');
        try {
          await withDeadline(sql`select 1`.execute(db), READY_WITHIN_MS, 'no answer in time');
        } catch (error) {
          outage.failed(error);
          describeAnswer(request, 'info', 'request answered 503: the database is not answering');
          throw new AppError('unavailable', 'The database is not answering.');
        }
        outage.succeeded();
        return { success: true as const, data: { status: 'ready' } };
      },
    );
  };
}
