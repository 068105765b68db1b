import { html, type SafeHtml } from '@folio/client';
import type { AdminArticle, ArticleStatus, Project } from '@folio/schema';
import type { ArticleSummary } from '../../services/articles.ts';
import { projectPath, zonedTime } from './layout.ts';

/** What the list shows of an article, from the whole article its page shows. */
export function summaryOf(article: AdminArticle): ArticleSummary {
  return { ...article, hasDraft: article.draft !== null };
}

export function articlePath(project: Project, article: Pick<AdminArticle, 'id'>): string {
  return `${projectPath(project.id)}/articles/${encodeURIComponent(article.id)}`;
}

/**
 * Where an article stands, in the preview perspective's words: served as is, served with a
 * draft waiting (`changed`), or not served.
 */
export function articleState(article: ArticleSummary): ArticleStatus {
  if (!article.published) return 'unpublished';
  return article.hasDraft ? 'changed' : 'published';
}

const STATE_CLASS: Record<ArticleStatus, string> = {
  published: 'succeeded',
  changed: 'changed',
  unpublished: 'draft',
};

/** The state badge, and a `scheduled` badge beside it when a publish or unpublish is set. */
export function stateBadges(article: ArticleSummary): SafeHtml {
  const state = articleState(article);
  const scheduled = article.publishAt !== null || article.unpublishAt !== null;
  return html`<span class="badges"><span class="status ${STATE_CLASS[state]}">${state}</span>${
    scheduled ? html` <span class="status scheduled">scheduled</span>` : ''
  }</span>`;
}

/** What the schedule will do and when, one line each, in the viewer's zone and UTC. */
export function scheduleLines(article: ArticleSummary): SafeHtml[] {
  const lines: SafeHtml[] = [];
  if (article.publishAt) {
    const what = !article.published
      ? 'Publishes'
      : article.hasDraft
        ? 'Publishes the draft'
        : 'Publishes any draft';
    lines.push(html`<span class="schedule-line">${what} on ${zonedTime(article.publishAt)}</span>`);
  }
  if (article.unpublishAt) {
    lines.push(html`<span class="schedule-line">Unpublishes on ${zonedTime(article.unpublishAt)}</span>`);
  }
  return lines;
}
