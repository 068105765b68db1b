import type { PreviewLink } from '@folio/schema';
import type { ProjectRow } from '../db/tables.ts';
import { AppError } from '../errors.ts';
import * as articles from '../store/articles.ts';
import { findPreviewToken, insertPreviewToken, pruneExpiredPreviewTokens } from '../store/preview-tokens.ts';
import { findProject } from '../store/projects.ts';
import { draftOf } from './article-view.ts';
import { findArticleOr404 } from './article-writes.ts';
import type { ServiceDeps } from './deps.ts';
import { isoTime } from './iso-time.ts';
import { requireProject } from './projects.ts';
import { generateToken, hashToken } from './tokens.ts';

/**
 * Preview links (contract, Part 2): a `folio_pt_…` token that reads one article in the preview
 * perspective for an hour, in a URL of the site's own preview route. Tokens are stored as
 * hashes, like keys, rather than signed: deleting the article deletes its tokens (a signed
 * token would outlive it and work again for a new article under the same id), and no server
 * secret has to be configured, shared between processes or rotated for them.
 */

export const PREVIEW_TOKEN_PREFIX = 'folio_pt_';
const TOKEN_LIFETIME_MS = 60 * 60 * 1000;

/** Creates a preview link for article `id`; 409 when the project has no `previewUrl`. */
export async function createPreviewLink(
  deps: ServiceDeps,
  projectId: string,
  id: string,
): Promise<PreviewLink> {
  const project = await requireProject(deps, projectId);
  const row = await findArticleOr404(deps.db, projectId, id);
  if (project.preview_url === null) {
    throw new AppError(
      'conflict',
      'The project has no preview URL, so a preview link cannot be made. Set previewUrl on the project.',
    );
  }
  const now = deps.now();
  const token = generateToken(PREVIEW_TOKEN_PREFIX);
  const expiresAt = now + TOKEN_LIFETIME_MS;
  // Expired tokens go as new ones are made: the table holds about an hour of links.
  await pruneExpiredPreviewTokens(deps.db, now);
  await insertPreviewToken(deps.db, {
    token_hash: hashToken(token),
    project_id: projectId,
    article_id: id,
    created_at: now,
    expires_at: expiresAt,
  });
  const slug = draftOf(row)?.slug ?? row.slug;
  const url = project.preview_url
    .replaceAll('{token}', encodeURIComponent(token))
    .replaceAll('{slug}', encodeURIComponent(slug));
  return { url, token, expiresAt: isoTime(expiresAt) };
}

/** A preview token, checked: the project and the one article it reads. */
export interface PreviewTokenReader {
  /** What its rate-limit budget is kept under: never the secret itself. */
  keyId: string;
  project: ProjectRow;
  articleId: string;
}

/** A preview token that exists and has not expired, whatever it is then used for. */
export interface LivePreviewToken {
  keyId: string;
  projectId: string;
  articleId: string;
}

/** 401 for an unknown or expired preview token (its article's deletion deleted it too). */
export async function identifyPreviewToken(deps: ServiceDeps, token: string): Promise<LivePreviewToken> {
  const hash = hashToken(token);
  const found = await findPreviewToken(deps.db, hash);
  if (!found || found.expires_at <= deps.now()) throw refusedToken();
  return { keyId: `pt:${hash.slice(0, 16)}`, projectId: found.project_id, articleId: found.article_id };
}

/** What a live token reads on `projectId`: 401 for another project's token, or a gone article. */
export async function previewTokenReader(
  deps: ServiceDeps,
  token: LivePreviewToken,
  projectId: string,
): Promise<PreviewTokenReader> {
  if (token.projectId !== projectId) throw refusedToken();
  const project = await findProject(deps.db, projectId);
  const article = project && (await articles.findArticle(deps.db, projectId, token.articleId));
  if (!project || !article) throw refusedToken();
  return { keyId: token.keyId, project, articleId: token.articleId };
}

function refusedToken(): AppError {
  return new AppError('unauthorized', 'The preview token is not valid or has expired.');
}
