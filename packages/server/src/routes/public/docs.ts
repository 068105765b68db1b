import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync } from 'fastify';
import type { ResponseCache } from '../../http/response-cache.ts';
import { sendCached } from '../../http/send-json.ts';

/**
 * The API reference at /docs, for people: Redoc's standalone bundle, served from this server
 * (no outside network), rendering the same OpenAPI document that /public/v1/openapi.json
 * serves. Redoc 3 depends on an OpenTelemetry package this registry does not carry in the
 * version it asks for; the standalone bundle does not import it, and the root package.json
 * overrides it with one that exists (see README, "API reference").
 */

const BUNDLE = 'redoc.standalone.js';
// Resolved from this package, where npm installs redoc.
const BUNDLE_FILE = fileURLToPath(import.meta.resolve(`redoc/bundles/${BUNDLE}`));

// Redoc renders with inline styles (styled-components) and may start a search worker from a
// blob; scripts come only from this server, and telemetry could not leave the page (connect-src).
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Folio API reference</title>
<link rel="icon" href="data:,">
</head>
<body>
<redoc spec-url="/public/v1/openapi.json" disable-telemetry="true" hide-download-button="false"></redoc>
<script type="module" src="/docs/${BUNDLE}"></script>
</body>
</html>
`;

export function docsRoutes(cache: ResponseCache): FastifyPluginAsync {
  return async (app) => {
    app.addHook('onSend', async (_request, reply, payload) => {
      reply.header('content-security-policy', CSP);
      reply.header('x-content-type-options', 'nosniff');
      return payload;
    });
    app.get('/docs', { schema: { hide: true } }, async (request, reply) => {
      reply.header('cache-control', 'no-cache');
      return sendCached(
        request,
        reply,
        cache,
        { key: 'docs:page', type: 'text/html; charset=utf-8' },
        async () => PAGE,
      );
    });
    app.get(`/docs/${BUNDLE}`, { schema: { hide: true } }, async (request, reply) => {
      // The file changes only with the installed version; a day of caching, then revalidation.
      reply.header('cache-control', 'public, max-age=86400');
      const type = 'text/javascript; charset=utf-8';
      return sendCached(request, reply, cache, { key: 'docs:bundle', type }, () =>
        readFile(BUNDLE_FILE, 'utf8'),
      );
    });
  };
}
