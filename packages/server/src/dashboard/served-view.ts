import type { AdminArticle, Article, PreviewArticle } from '@folio/schema';
import { AppError } from '../errors.ts';
import { type DataJson, getPublishedArticle } from '../services/delivery.ts';
import type { ServiceDeps } from '../services/deps.ts';
import { getPreviewArticle } from '../services/preview.ts';
import { requireProject } from '../services/projects.ts';

/** An article as sites get it, from the delivery side: SEO, Open Graph, JSON-LD, related links. */
export interface ServedView {
  /** What content keys get now; null while the article is unpublished. */
  served: Article | null;
  /**
   * What publishing would serve, in the preview perspective (related links include unpublished
   * articles there): set when the article has a draft or is unpublished.
   */
  upcoming: PreviewArticle | null;
}

/**
 * The delivery API's own answers for one article: the published body a content key reads, and
 * for a draft or an unpublished article, the body a preview key reads. Both are the services'
 * JSON text of the delivery answers, so the page shows exactly what is served.
 */
export async function readServedView(
  deps: ServiceDeps,
  projectId: string,
  article: AdminArticle,
): Promise<ServedView> {
  const project = await requireProject(deps, projectId);
  const served = article.published
    ? await readData<Article>(() => getPublishedArticle(deps, project, article.slug))
    : null;
  const needsUpcoming = article.draft !== null || !article.published;
  const slug = article.draft?.slug ?? article.slug;
  const upcoming = needsUpcoming
    ? await readData<PreviewArticle>(() => getPreviewArticle(deps, project, slug))
    : null;
  return {
    served: served?.id === article.id ? served : null,
    upcoming: upcoming?.id === article.id ? upcoming : null,
  };
}

/** The answer's `data`; null when the article is not found there (changed meanwhile). */
async function readData<T>(read: () => Promise<DataJson<string>>): Promise<T | null> {
  try {
    return JSON.parse((await read()).data) as T;
  } catch (error) {
    if (error instanceof AppError && error.code === 'not_found') return null;
    throw error;
  }
}
