import { AppError } from '../errors.ts';
import { findArticleIdBySlug } from '../services/articles.ts';
import type { ServiceDeps } from '../services/deps.ts';

/**
 * Runs `action` on the article `id` of `folio <command> ID`. The list shows slugs beside ids and
 * sites link by slug, so a slug given for the id is a likely slip: its not_found names the id.
 */
export async function onArticle<T>(
  deps: ServiceDeps,
  projectId: string,
  command: string,
  id: string,
  action: (id: string) => Promise<T>,
): Promise<T> {
  try {
    return await action(id);
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'not_found') throw error;
    const held = await findArticleIdBySlug(deps, projectId, id);
    if (held === undefined) throw error;
    throw new AppError(
      'not_found',
      `${error.message} "${id}" is the slug of article ${held}; give its id: folio ${command} ${held}`,
      error.details,
    );
  }
}
