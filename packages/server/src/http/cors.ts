import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * CORS `*` for routes at the root, where `@fastify/cors` cannot be used: it answers preflights
 * with an `OPTIONS *` route of its context, which at the root would invite cross-origin calls to
 * the delivery and management APIs too (the `/public/v1` routes have it under their prefix).
 * The answers of the routes `app` declares (errors included) carry `Access-Control-Allow-Origin:
 * *`, and `paths` answer their preflight as `@fastify/cors` answers the public routes'.
 */
export function allowAnyOrigin(app: FastifyInstance, paths: string[]): void {
  app.addHook('onRequest', (_request, reply, done) => {
    reply.header('access-control-allow-origin', '*');
    done();
  });
  for (const path of paths) app.options(path, { schema: { hide: true } }, answerPreflight);
}

function answerPreflight(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('access-control-allow-methods', 'GET, HEAD');
  const asked = request.headers['access-control-request-headers'];
  reply.header('vary', 'Access-Control-Request-Headers');
  if (asked) reply.header('access-control-allow-headers', asked);
  reply.code(204).send();
}
