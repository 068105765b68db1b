import type { ContentKey, CreatedContentKey } from '@folio/schema';
import { isDatabaseStorageRefusal } from '../db/errors.ts';
import type { ContentKeyRow, KeyKind, ProjectRow } from '../db/tables.ts';
import { AppError, notFound } from '../errors.ts';
import * as keys from '../store/content-keys.ts';
import type { ServiceDeps } from './deps.ts';
import { isoTime } from './iso-time.ts';
import { requireProject } from './projects.ts';
import { credentialMixUp, generateId, generateToken, hashToken, TOKEN_PREFIXES } from './tokens.ts';

const CONTENT_KEY_PREFIX = TOKEN_PREFIXES.content;
const PREVIEW_KEY_PREFIX = TOKEN_PREFIXES.preview;
const PREFIXES: Record<KeyKind, string> = { content: CONTENT_KEY_PREFIX, preview: PREVIEW_KEY_PREFIX };
// Shown in lists so an operator can tell keys apart without the secret.
const DISPLAY_PREFIX_LENGTH = CONTENT_KEY_PREFIX.length + 6;
// lastUsedAt is for humans; writing it on every read would turn each read into a write.
const LAST_USED_RESOLUTION_MS = 60_000;

function toContentKey(row: ContentKeyRow): ContentKey {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    prefix: row.prefix,
    createdAt: isoTime(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : isoTime(row.last_used_at),
  };
}

/**
 * Creates a key: a content key (`folio_ck_…`) or a preview key (`folio_pk_…`); the answer is
 * the only place the secret ever appears.
 */
export async function createContentKey(
  deps: ServiceDeps,
  projectId: string,
  name: string,
  kind: KeyKind = 'content',
): Promise<CreatedContentKey> {
  await requireProject(deps, projectId);
  const key = generateToken(PREFIXES[kind]);
  const row = await keys.insertContentKey(deps.db, {
    id: generateId('key'),
    project_id: projectId,
    name,
    kind,
    prefix: key.slice(0, DISPLAY_PREFIX_LENGTH),
    key_hash: hashToken(key),
    created_at: deps.now(),
    last_used_at: null,
    revoked_at: null,
  });
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    prefix: row.prefix,
    key,
    createdAt: isoTime(row.created_at),
  };
}

export async function listContentKeys(deps: ServiceDeps, projectId: string): Promise<ContentKey[]> {
  await requireProject(deps, projectId);
  return (await keys.listActiveContentKeys(deps.db, projectId)).map(toContentKey);
}

export async function revokeContentKey(deps: ServiceDeps, projectId: string, keyId: string): Promise<void> {
  await requireProject(deps, projectId);
  if (!(await keys.revokeContentKey(deps.db, projectId, keyId, deps.now()))) throw notFound(`Key "${keyId}"`);
}

/** A delivery request's key, checked: its project and when it was last used. */
export interface AuthenticatedKey {
  /** The key's id: what its rate-limit budget is kept under (never the secret itself). */
  keyId: string;
  /** What it reads: published content, or the preview perspective. */
  kind: KeyKind;
  project: ProjectRow;
  lastUsedAt: number;
}

/** The 401 of a delivery request that carries no content key. */
export function missingContentKey(): AppError {
  return new AppError('unauthorized', 'Send the content key as "Authorization: Bearer <content key>".');
}

/**
 * Identifies a delivery request's key for a request on `projectId`: 401 for a missing, unknown
 * or revoked key. A key of another project is returned unused (its `lastUsedAt` untouched), and
 * refused by `requireKeyProject` once the request has been counted against the key's budget: a
 * valid key sent to another project is no failed authentication.
 */
export async function identifyContentKey(
  deps: ServiceDeps,
  token: string | undefined,
  projectId: string,
): Promise<AuthenticatedKey> {
  if (!token) throw missingContentKey();
  const found =
    token.startsWith(CONTENT_KEY_PREFIX) || token.startsWith(PREVIEW_KEY_PREFIX)
      ? await keys.findContentKeyWithProject(deps.db, hashToken(token))
      : undefined;
  if (!found || found.revokedAt !== null) {
    throw new AppError('unauthorized', `The content key is not valid${credentialMixUp(token, 'key')}.`);
  }
  const { keyId, kind, project } = found;
  if (project.id !== projectId) return { keyId, kind, project, lastUsedAt: found.lastUsedAt ?? 0 };
  const now = deps.now();
  if (found.lastUsedAt === null || now - found.lastUsedAt >= LAST_USED_RESOLUTION_MS) {
    try {
      await keys.touchContentKey(deps.db, keyId, now);
    } catch (error) {
      // A key's last use is a note for the operator: a database that cannot store it (a full
      // disk, a read-only standby) must not refuse the read it came with.
      if (!isDatabaseStorageRefusal(error)) throw error;
    }
    return { keyId, kind, project, lastUsedAt: now };
  }
  return { keyId, kind, project, lastUsedAt: found.lastUsedAt };
}

/** 403 for a valid key of another project than the one asked for. */
export function requireKeyProject(key: AuthenticatedKey, projectId: string): AuthenticatedKey {
  if (key.project.id !== projectId)
    throw new AppError(
      'forbidden',
      'This content key is not a key of the project in the URL: check its project id.',
    );
  return key;
}
