import { readFileSync } from 'node:fs';
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import type { LastHour } from '../http/metrics-history.ts';
import { describeAnswer } from '../http/request-log.ts';
import type { AdminCredential } from '../services/admin-auth.ts';
import type { ServiceDeps } from '../services/deps.ts';
import { TOKEN_PREFIXES } from '../services/tokens.ts';
import { articleRoutes } from './article-routes.ts';
import {
  attachSession,
  dashboardReturn,
  formBody,
  isCrossSite,
  loadSession,
  readSessionCookie,
  sendHtml,
  sessionCookie,
  sessionOf,
  signInReturningTo,
} from './http.ts';
import { messagePage, signInPage } from './pages/sign-in.ts';
import { projectRoutes } from './project-routes.ts';
import { csrfTokenMatches, findSession, SESSION_LIFETIME_MS, signIn, signOut } from './session.ts';

export interface DashboardOptions {
  deps: ServiceDeps;
  credential: AdminCredential;
  /** The server's public base URL, shown on the Connection card. */
  baseUrl: string;
  /** This server process's counters over the last hour (see `metrics-history.ts`). */
  lastHour: () => LastHour;
}

const FORM_BODY_LIMIT = 64 * 1024;
const FORM_HOLDS_NUL = 'A field of the form holds a NUL character (U+0000), which cannot be stored.';
// The parts of a page that its script refreshes: answered 401, not redirected, once signed out.
const LIVE_FRAGMENT = /^\/dashboard\/projects\/[^/]+\/(deliveries|traffic)$/;
const PUBLIC_PATHS = new Set([
  '/dashboard/sign-in',
  '/dashboard/assets/dashboard.css',
  '/dashboard/assets/dashboard.js',
]);
const ASSETS = {
  'dashboard.css': { type: 'text/css; charset=utf-8', body: readAsset('dashboard.css') },
  'dashboard.js': { type: 'text/javascript; charset=utf-8', body: readAsset('dashboard.js') },
};
// Only this server's own files: inline code and every other origin are refused.
const CSP =
  "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

function readAsset(name: string): string {
  return readFileSync(new URL(`./assets/${name}`, import.meta.url), 'utf8');
}

/** The dashboard at /dashboard: server-rendered pages over the same services as the management API. */
export function dashboardRoutes(options: DashboardOptions): FastifyPluginAsync {
  return async (app) => {
    await app.register(async (dashboard) => installDashboard(dashboard, options), { prefix: '/dashboard' });
  };
}

async function installDashboard(
  app: FastifyInstance,
  { deps, credential, baseUrl, lastHour }: DashboardOptions,
) {
  const publicOrigin = new URL(baseUrl).origin;
  installPlumbing(app);
  installGuard(app, deps, credential, publicOrigin);
  installErrorPages(app);
  app.get('/assets/:name', async (request, reply) => {
    const { name } = request.params as { name: string };
    if (!Object.hasOwn(ASSETS, name)) throw new AppError('not_found');
    const asset = ASSETS[name as keyof typeof ASSETS];
    return reply.header('cache-control', 'no-cache').type(asset.type).send(asset.body);
  });
  installSessionRoutes(app, deps, credential, publicOrigin);
  await app.register(projectRoutes({ deps, baseUrl, lastHour }));
  await app.register(articleRoutes({ deps, baseUrl }));
}

/** Form bodies, security headers, and no dashboard route in the OpenAPI document. */
function installPlumbing(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  // Forms only: the JSON parser the dashboard would inherit from the APIs let a JSON body through
  // with fields that are no strings, which no handler here expects.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => {
      const fields = Object.fromEntries(new URLSearchParams(body as string));
      // As in a JSON body (http/json-body.ts): PostgreSQL text cannot hold U+0000, and no field
      // means one. Form decoding makes no lone surrogate (bad UTF-8 becomes U+FFFD).
      if (Object.values(fields).some((value) => value.includes('\u0000'))) {
        return done(new AppError('invalid_body', FORM_HOLDS_NUL), undefined);
      }
      done(null, fields);
    },
  );
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('content-security-policy', CSP);
    reply.header('x-content-type-options', 'nosniff');
    // Not no-referrer: with it Chromium posts forms with `Origin: null`, which the Origin check refuses.
    reply.header('referrer-policy', 'same-origin');
    reply.header('x-frame-options', 'DENY');
    return payload;
  });
}

/**
 * Before every handler: POSTs from another origin are refused; every page but sign-in and the
 * assets needs a live session; every POST needs the session's CSRF token.
 */
function installGuard(
  app: FastifyInstance,
  deps: ServiceDeps,
  credential: AdminCredential,
  publicOrigin: string,
): void {
  app.addHook('preHandler', async (request, reply) => {
    const path = request.url.split('?')[0]!;
    if (request.method === 'POST' && isCrossSite(request, publicOrigin)) {
      return sendHtml(reply, messagePage('Refused', 'This form was posted from another site.'), 403);
    }
    if (PUBLIC_PATHS.has(path)) return;
    // A page view consumes the flash; the background refreshes (the delivery log, the Last hour
    // card) must not, nor a HEAD, which shows no page. A HEAD is otherwise answered as its GET
    // (RFC 9110 9.3.2).
    const page = (request.method === 'GET' || request.method === 'HEAD') && !LIVE_FRAGMENT.test(path);
    const found = await loadSession(deps, credential, request, page && request.method === 'GET');
    if (!found) {
      // Sign-in returns to the page asked for or, after a refused form, to the form's page.
      if (page) {
        return reply
          .code(303)
          .header('location', signInReturningTo(dashboardReturn(request.url)))
          .send();
      }
      const signInLink = { href: signInReturningTo(formPage(request)), label: 'Sign in' };
      const why = 'Your session has ended, so the form was not sent. Sign in again to go back to its page.';
      return sendHtml(reply, messagePage('Signed out', why, signInLink), 401);
    }
    if (request.method === 'POST' && !csrfTokenMatches(found.session, formBody(request).csrf)) {
      // Reloading this answer would post the same stale token again: the way on is the form's page.
      const why =
        'The form was stale or not from this dashboard. Open its page again for a fresh form, and try again.';
      const page = formPage(request);
      const back = page ? { href: page, label: 'Back to the form' } : undefined;
      return sendHtml(reply, messagePage('Refused', why, back), 403);
    }
    attachSession(request, found);
  });
}

/** Failures as readable HTML pages, never the API's JSON. */
function installErrorPages(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const appError = error instanceof AppError ? error : clientError(error);
    if (appError.status >= 500) describeAnswer(request, 'error', 'dashboard request failed', error);
    // As the APIs do: a lockout (429) or an outage (503) says when to try again.
    if (appError.retryAfterSeconds !== undefined)
      reply.header('retry-after', String(appError.retryAfterSeconds));
    // The projects page would lead a signed-out user back to the sign-in the lockout refuses.
    const link = appError.status === 429 ? signInAfterWait(request) : undefined;
    return sendHtml(reply, messagePage(errorTitle(appError.status), appError.message, link), appError.status);
  });
  app.setNotFoundHandler((request, reply) =>
    sendHtml(reply, messagePage('Not found', `Nothing is at ${request.url.split('?')[0]}.`), 404),
  );
}

function installSessionRoutes(
  app: FastifyInstance,
  deps: ServiceDeps,
  credential: AdminCredential,
  publicOrigin: string,
): void {
  app.get<{ Querystring: { next?: string } }>('/sign-in', async (request, reply) => {
    const next = dashboardReturn(request.query.next);
    if (await findSession(deps, credential, readSessionCookie(request), { takeFlash: false })) {
      return reply
        .code(303)
        .header('location', next ?? '/dashboard')
        .send();
    }
    return sendHtml(reply, signInPage({ next }));
  });

  app.post('/sign-in', async (request, reply) => {
    const next = dashboardReturn(formBody(request).next);
    try {
      const session = await signIn(deps, credential, formBody(request).token);
      // Signing in again replaces the browser's previous session rather than leaving it alive.
      const previous = await findSession(deps, credential, readSessionCookie(request), { takeFlash: false });
      if (previous) await signOut(deps, previous.session);
      reply.header(
        'set-cookie',
        sessionCookie(request, session.id, SESSION_LIFETIME_MS / 1000, publicOrigin),
      );
      return reply
        .code(303)
        .header('location', next ?? '/dashboard')
        .send();
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'unauthorized') throw error;
      return sendHtml(reply, signInPage({ error: refusedTokenMessage(formBody(request).token), next }), 401);
    }
  });

  app.post('/sign-out', async (request, reply) => {
    await signOut(deps, sessionOf(request).session);
    reply.header('set-cookie', sessionCookie(request, '', 0, publicOrigin));
    return reply.code(303).header('location', '/dashboard/sign-in').send();
  });
}

/** Why a sign-in was refused: a site's key pasted in by mistake is named as one. */
function refusedTokenMessage(token: string | undefined): string {
  const isKey = [TOKEN_PREFIXES.content, TOKEN_PREFIXES.preview].some((prefix) =>
    token?.trim().startsWith(prefix),
  );
  if (isKey) return 'That is a key that sites read articles with, not the admin token.';
  // As the start-up banner says: a reset token opens the dashboard only once the server restarts,
  // and never one that reads FOLIO_ADMIN_TOKEN (which the page must not tell a stranger).
  return 'That is not the admin token. Lost it? If the server sets FOLIO_ADMIN_TOKEN, that is the token; otherwise npx folio admin-token reset, run on the server, prints a new one that works once the server restarts.';
}

/** The page a refused form was on, from the Referer (this dashboard sends it same-origin only). */
function formPage(request: FastifyRequest): string | undefined {
  const referer = request.headers.referer;
  const url = referer === undefined ? null : URL.parse(referer);
  return url ? dashboardReturn(`${url.pathname}${url.search}`) : undefined;
}

/** A lockout's way on: sign-in, once the wait is over, returning to the page it refused. */
function signInAfterWait(request: FastifyRequest): { href: string; label: string } {
  const page = request.method === 'GET' ? dashboardReturn(request.url) : formPage(request);
  return { href: signInReturningTo(page), label: 'Sign in' };
}

function errorTitle(status: number): string {
  if (status === 404) return 'Not found';
  if (status === 429) return 'Too many attempts';
  return status >= 500 ? 'Something went wrong' : 'Refused';
}

function clientError(error: FastifyError): AppError {
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return new AppError('payload_too_large', 'The form is too large.');
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new AppError(
      'unsupported_media_type',
      'Dashboard forms are sent as application/x-www-form-urlencoded.',
    );
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return new AppError('invalid_body', 'The request is not valid.');
  }
  return new AppError('internal');
}
