import type { AdminArticle, ArticleStatus } from '@folio/schema';
import { stableStringify } from '../services/stable-json.ts';

/**
 * Where an article stands, in the preview perspective's words (contract, Part 2): served as it
 * is, served with a draft waiting (`changed`), or not served.
 */
export function articleState(article: AdminArticle): ArticleStatus {
  if (!article.published) return 'unpublished';
  return article.draft ? 'changed' : 'published';
}

/** What the schedule will do, e.g. `publishes 2026-11-20T10:00:00.000Z`; '-' when none is set. */
export function scheduleText(article: Pick<AdminArticle, 'publishAt' | 'unpublishAt'>): string {
  const parts = [
    ...(article.publishAt ? [`publishes ${article.publishAt}`] : []),
    ...(article.unpublishAt ? [`unpublishes ${article.unpublishAt}`] : []),
  ];
  return parts.length > 0 ? parts.join(', ') : '-';
}

const DRAFT_FIELDS = ['title', 'slug', 'blocks', 'seo', 'related'] as const;

/** The fields the draft sets differently from the article's stored content. */
export function draftChanges(article: AdminArticle): string[] {
  const { draft } = article;
  if (!draft) return [];
  // Stored JSON keeps the key order it was ingested in; the same content may come in another.
  return DRAFT_FIELDS.filter((field) => stableStringify(draft[field]) !== stableStringify(article[field]));
}

/** The `draft:` lines of `folio articles get`: when it was saved and what it changes. */
export function draftLines(article: AdminArticle): string[] {
  const { draft } = article;
  if (!draft) return ['-'];
  const changes = draftChanges(article);
  const lines = [
    `saved ${draft.updatedAt}; ${changes.length > 0 ? `changes ${changes.join(', ')}` : 'the same content as the article'}`,
  ];
  if (changes.includes('title')) lines.push(`title:  ${draft.title}`);
  if (changes.includes('slug')) lines.push(`slug:   ${draft.slug}`);
  if (changes.includes('blocks')) lines.push(`blocks: ${draft.blocks.length}`);
  return lines;
}
