import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { type AdminCredential, verifyAdminToken } from '../services/admin-auth.ts';
import type { ServiceDeps } from '../services/deps.ts';
import { hashToken } from '../services/tokens.ts';
import * as store from '../store/dashboard-sessions.ts';

/** How long a dashboard session lasts after sign-in. */
export const SESSION_LIFETIME_MS = 12 * 3_600_000;

/** A one-time message shown on the next page (POST-redirect-GET). */
export interface Flash {
  kind: 'success' | 'error';
  message: string;
  /** Which form it belongs to, so the outcome is shown with that form rather than atop the page. */
  form?: string;
  /** The field the refusal names (its API name), so only that field is marked and the message sits beside it. */
  field?: string;
  /** A secret shown once (a new content key, the signing secret). */
  secret?: { label: string; value: string };
  /** What the user had typed, so a refused form keeps it. */
  values?: Record<string, string>;
}

/** A signed-in browser: the hash that names the row, and the id only the cookie holds. */
export interface DashboardSession {
  id: string;
  idHash: string;
  csrfToken: string;
}

/**
 * Signs in with the admin token (the management API's own check) and stores a new session.
 * Throws `401 unauthorized` for a wrong token.
 */
export async function signIn(
  deps: ServiceDeps,
  credential: AdminCredential,
  token: string | undefined,
): Promise<DashboardSession> {
  verifyAdminToken(credential, token || undefined);
  const now = deps.now();
  await store.deleteExpiredDashboardSessions(deps.db, now);
  const id = randomBytes(32).toString('base64url');
  const session = describe(credential, id);
  await store.insertDashboardSession(deps.db, {
    id_hash: session.idHash,
    created_at: now,
    expires_at: now + SESSION_LIFETIME_MS,
    flash: null,
  });
  return session;
}

/**
 * The live session named by a cookie value, with its pending flash (which is consumed): one
 * opened with the admin token this server takes now. A session opened with a token since
 * replaced (`FOLIO_ADMIN_TOKEN` changed, `folio admin-token reset`) names no row, so replacing a
 * leaked token also closes the dashboards it opened.
 */
export async function findSession(
  deps: ServiceDeps,
  credential: AdminCredential,
  id: string | undefined,
  { takeFlash }: { takeFlash: boolean },
): Promise<{ session: DashboardSession; flash: Flash | undefined } | undefined> {
  if (!id || !/^[A-Za-z0-9_-]{43}$/.test(id)) return undefined;
  const session = describe(credential, id);
  const row = await store.findLiveDashboardSession(deps.db, session.idHash, deps.now());
  if (!row) return undefined;
  let flash: Flash | undefined;
  if (takeFlash && row.flash !== null) {
    flash = openFlash(id, row.flash);
    await store.setDashboardSessionFlash(deps.db, session.idHash, null);
  }
  return { session, flash };
}

export async function setFlash(deps: ServiceDeps, session: DashboardSession, flash: Flash): Promise<void> {
  await store.setDashboardSessionFlash(deps.db, session.idHash, sealFlash(session.id, flash));
}

export async function signOut(deps: ServiceDeps, session: DashboardSession): Promise<void> {
  await store.deleteDashboardSession(deps.db, session.idHash);
}

/** Constant-time check of a form's CSRF token against the session's. */
export function csrfTokenMatches(session: DashboardSession, token: string | undefined): boolean {
  if (!token) return false;
  const expected = Buffer.from(session.csrfToken);
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

function describe(credential: AdminCredential, id: string): DashboardSession {
  // The CSRF token is derived from the id, so it needs no storage and dies with the session.
  const csrfToken = createHash('sha256').update(`folio-dashboard-csrf:${id}`).digest('base64url');
  // The row is named by the id and the admin credential the session was opened with.
  return { id, idHash: hashToken(`${credential.hash}:${id}`), csrfToken };
}

// A flash may carry a new content key or the signing secret between the POST and the GET. It
// is sealed with a key derived from the session id, which the database never holds.
function flashKey(id: string): Buffer {
  return createHash('sha256').update(`folio-dashboard-flash:${id}`).digest();
}

function sealFlash(id: string, flash: Flash): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', flashKey(id), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(flash), 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url')).join('.');
}

function openFlash(id: string, sealed: string): Flash | undefined {
  try {
    const [iv, tag, body] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
    const decipher = createDecipheriv('aes-256-gcm', flashKey(id), iv!);
    decipher.setAuthTag(tag!);
    return JSON.parse(Buffer.concat([decipher.update(body!), decipher.final()]).toString('utf8')) as Flash;
  } catch {
    return undefined;
  }
}
