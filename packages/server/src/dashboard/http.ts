import type { Pagination } from '@folio/schema';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import type { AdminCredential } from '../services/admin-auth.ts';
import type { ServiceDeps } from '../services/deps.ts';
import { type DashboardSession, type Flash, findSession, setFlash } from './session.ts';

export const SESSION_COOKIE = 'folio_session';

/** What a signed-in request carries, attached by the session hook. */
export interface SignedIn {
  session: DashboardSession;
  flash: Flash | undefined;
}

const signedIn = new WeakMap<FastifyRequest, SignedIn>();

export function attachSession(request: FastifyRequest, value: SignedIn): void {
  signedIn.set(request, value);
}

/** The request's session; the hook has already refused requests without one. */
export function sessionOf(request: FastifyRequest): SignedIn {
  const value = signedIn.get(request);
  if (!value) throw new Error('dashboard route reached without a session');
  return value;
}

/** The session cookie's value from the Cookie header. */
export function readSessionCookie(request: FastifyRequest): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === SESSION_COOKIE) return rest.join('=');
  }
  return undefined;
}

/**
 * HttpOnly, SameSite=Strict, only under /dashboard, and Secure when the request came over https
 * or the server's public address (FOLIO_BASE_URL) is https: behind a proxy that ends TLS, the
 * request itself may arrive over http when the proxy is not trusted to say otherwise.
 */
export function sessionCookie(
  request: FastifyRequest,
  value: string,
  maxAgeSeconds: number,
  publicOrigin: string,
): string {
  const secure = request.protocol === 'https' || publicOrigin.startsWith('https:') ? '; Secure' : '';
  return `${SESSION_COOKIE}=${value}; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`;
}

export async function loadSession(
  deps: ServiceDeps,
  credential: AdminCredential,
  request: FastifyRequest,
  takeFlash: boolean,
): Promise<SignedIn | undefined> {
  return findSession(deps, credential, readSessionCookie(request), { takeFlash });
}

/**
 * A POST from another site is refused: browsers send Origin (and Sec-Fetch-Site) on form posts,
 * and only a page of this server may post here. The CSRF token is checked besides. The server's
 * public origin (FOLIO_BASE_URL) counts as its own: behind a proxy that ends TLS the request
 * itself arrives over http, while the browser's Origin says https.
 */
export function isCrossSite(request: FastifyRequest, publicOrigin: string): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  return origin !== `${request.protocol}://${request.host}` && origin !== publicOrigin;
}

// Any URL parses against it; a result on another origin is a path that was not this server's.
const OWN_ORIGIN = 'http://folio.invalid';

/**
 * Where sign-in may return to: a dashboard page of this server, as a path with its query, else
 * undefined. The path is normalized first, so `/dashboard/..//host` or a backslash (which
 * browsers read as a slash) cannot turn sign-in into a redirect to another site.
 */
export function dashboardReturn(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 2048 || !value.startsWith('/')) return undefined;
  const url = URL.parse(value, OWN_ORIGIN);
  if (!url || url.origin !== OWN_ORIGIN) return undefined;
  const { pathname, search } = url;
  if (pathname !== '/dashboard' && !pathname.startsWith('/dashboard/')) return undefined;
  if (pathname.startsWith('/dashboard/sign-')) return undefined;
  return `${pathname}${search}`;
}

/** The sign-in page's address that returns to `path` (a `dashboardReturn` result) afterwards. */
export function signInReturningTo(path: string | undefined): string {
  return path === undefined || path === '/dashboard'
    ? '/dashboard/sign-in'
    : `/dashboard/sign-in?${new URLSearchParams({ next: path })}`;
}

export type FormBody = Record<string, string>;

/** The form body as flat text fields (the last value wins for a repeated name). */
export function formBody(request: FastifyRequest): FormBody {
  return (request.body as FormBody | undefined) ?? {};
}

/** A `?page=` value as a page number: 1 for anything that is not one, bounded above. */
export function pageNumber(raw: unknown): number {
  return Math.max(1, Math.min(1_000_000, Number.parseInt(String(raw ?? '1'), 10) || 1));
}

/**
 * The page of a list that a `?page=` value asks for. A page past the end (its last row deleted,
 * a stale link) shows the last page, in place rather than by redirect, so an action's message is
 * not consumed on the way.
 */
export async function readPage<List extends { pagination: Pagination }>(
  raw: unknown,
  read: (page: number) => Promise<List>,
): Promise<List> {
  const page = pageNumber(raw);
  const list = await read(page);
  const last = list.pagination.totalPages;
  return page > last && last > 0 ? read(last) : list;
}

export function sendHtml(reply: FastifyReply, page: string, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(page);
}

/** Where a form's outcome is shown: its id, the page to return to, and its fields' labels. */
export interface FormTarget {
  form: string;
  back: string;
  /** API field name → the label the form shows for it, so a refusal names what the user sees. */
  labels?: Record<string, string>;
}

/**
 * Runs a form's action, then redirects (POST-redirect-GET) with a flash: the action's success
 * message, or the service's refusal shown next to `form` with what the user typed.
 */
export async function runAction(
  deps: ServiceDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  target: FormTarget,
  action: () => Promise<Omit<Flash, 'kind'> & { back?: string }>,
): Promise<FastifyReply> {
  const { session } = sessionOf(request);
  let back = target.back;
  try {
    const { back: next, ...flash } = await action();
    if (next) back = next;
    // Back on the form's own page, the outcome is shown with the form, which the address's
    // fragment scrolls into view; elsewhere (a new project's page) atop the page.
    await setFlash(deps, session, { kind: 'success', ...flash, ...(next ? {} : { form: target.form }) });
  } catch (error) {
    return refuseForm(deps, request, reply, target, error);
  }
  return reply.code(303).header('location', back).send();
}

/**
 * Redirects back to the form with the service's refusal beside it and what the user typed; a
 * programmer's error or a server failure is thrown on to the error page. When the refusal names
 * one of the form's labelled fields, the flash says which, so the page marks that field alone.
 */
export async function refuseForm(
  deps: ServiceDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  target: FormTarget,
  error: unknown,
): Promise<FastifyReply> {
  if (!(error instanceof AppError) || error.status >= 500) throw error;
  const { csrf: _csrf, ...values } = formBody(request);
  const labels = target.labels ?? {};
  const message = readable(error, labels);
  const field = namedField(error, labels);
  await setFlash(deps, sessionOf(request).session, {
    kind: 'error',
    message,
    form: target.form,
    ...(field ? { field } : {}),
    values,
  });
  return reply.code(303).header('location', target.back).send();
}

/** The first labelled field a refusal's details point at (`/websiteUrl` → `websiteUrl`). */
function namedField(error: AppError, labels: Record<string, string>): string | undefined {
  for (const detail of error.details ?? []) {
    const field = detail.path.split('/')[1];
    if (field !== undefined && Object.hasOwn(labels, field)) return field;
  }
  return undefined;
}

/** The service's message, with the field problems it names, in the form's words. */
function readable(error: AppError, labels: Record<string, string>): string {
  // A whole word only: a field name inside a URL or a path the message quotes stays as it is.
  const words = (text: string) =>
    Object.entries(labels).reduce(
      (out, [field, label]) => out.replace(new RegExp(`(?<![\\w/.:-])${field}(?![\\w/.-])`, 'g'), label),
      text,
    );
  const message = words(error.message);
  const details = (error.details ?? []).map((detail) => words(detail.message));
  const extra = details.filter((detail) => !message.includes(detail));
  return extra.length > 0 ? `${message} (${extra.join('; ')})` : message;
}
