import { AppError } from '../errors.ts';
import { insertSettingIfAbsent, upsertSetting } from '../store/settings.ts';
import type { ServiceDeps } from './deps.ts';
import { credentialMixUp, generateToken, hashesEqual, hashToken, TOKEN_PREFIXES } from './tokens.ts';

const ADMIN_TOKEN_PREFIX = TOKEN_PREFIXES.admin;
const ADMIN_TOKEN_SETTING = 'admin_token_sha256';

export interface AdminCredential {
  /** SHA-256 of the token that opens the management API. */
  hash: string;
  /** Set only when this call generated the token: the one time it can be printed. */
  generatedToken: string | undefined;
}

/**
 * The admin credential: `FOLIO_ADMIN_TOKEN` when configured, else the token generated at the
 * first start and kept only as a hash. When two processes start at once, one token wins.
 */
export async function resolveAdminCredential(
  deps: ServiceDeps,
  configuredToken: string | undefined,
): Promise<AdminCredential> {
  if (configuredToken) return { hash: hashToken(configuredToken), generatedToken: undefined };
  const candidate = generateToken(ADMIN_TOKEN_PREFIX);
  const stored = await insertSettingIfAbsent(deps.db, ADMIN_TOKEN_SETTING, hashToken(candidate));
  return { hash: stored, generatedToken: stored === hashToken(candidate) ? candidate : undefined };
}

/**
 * Replaces the stored admin token with a new one and answers it, the one time it can be shown:
 * for an operator who lost the token printed at the first start. Servers read the stored hash
 * when they start, so the new token opens them (and the old one stops) once they restart.
 */
export async function resetAdminToken(deps: ServiceDeps): Promise<string> {
  const token = generateToken(ADMIN_TOKEN_PREFIX);
  await upsertSetting(deps.db, ADMIN_TOKEN_SETTING, hashToken(token));
  return token;
}

/** The 401 of a management request that carries no token. */
export function missingAdminToken(): AppError {
  return new AppError('unauthorized', 'Send the admin token as "Authorization: Bearer <token>".');
}

/** 401 unless `token` is the admin token. Content keys and unknown tokens are refused alike. */
export function verifyAdminToken(credential: AdminCredential, token: string | undefined): void {
  if (!token) throw missingAdminToken();
  if (!hashesEqual(hashToken(token), credential.hash)) {
    throw new AppError('unauthorized', `The admin token is not valid${credentialMixUp(token, 'admin')}.`);
  }
}
