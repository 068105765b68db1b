import type { FastifyPluginAsync } from 'fastify';
import { AppError } from '../errors.ts';
import {
  deleteArticle,
  getArticle,
  listArticleSummaries,
  publishArticle,
  unpublishArticle,
} from '../services/articles.ts';
import type { ServiceDeps } from '../services/deps.ts';
import { discardDraft } from '../services/drafts.ts';
import { createPreviewLink } from '../services/preview-links.ts';
import { getProject } from '../services/projects.ts';
import { scheduleArticle } from '../services/schedules.ts';
import { type FormTarget, formBody, readPage, refuseForm, runAction, sendHtml, sessionOf } from './http.ts';
import { articlePage, previewLinkPage } from './pages/article.ts';
import { articlesPage } from './pages/articles.ts';
import { projectPath } from './pages/layout.ts';
import { messagePage } from './pages/sign-in.ts';
import { describeSchedule, readScheduleForm, SCHEDULE_LABELS } from './schedule-form.ts';
import { readServedView } from './served-view.ts';

type ArticleParams = { projectId: string; articleId: string };
const PAGE_SIZE = 50;
const SEARCH_MAX = 200;

export interface ArticleRoutesOptions {
  deps: ServiceDeps;
  /** The server's public base URL, for the empty list's ready-to-paste commands. */
  baseUrl: string;
}

/**
 * The Articles page: list and search; an article's page with its state, draft, schedule and SEO
 * as served; publish, unpublish, delete, discard the draft, schedule, and preview on the site.
 */
export function articleRoutes({ deps, baseUrl }: ArticleRoutesOptions): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Params: { projectId: string }; Querystring: { q?: string; page?: string } }>(
      '/projects/:projectId/articles',
      async (request, reply) => {
        const { session, flash } = sessionOf(request);
        const project = await getProject(deps, request.params.projectId);
        const search = String(request.query.q ?? '').slice(0, SEARCH_MAX);
        const list = await readPage(request.query.page, (page) =>
          listArticleSummaries(deps, project.id, { page, limit: PAGE_SIZE, titleSearch: search }),
        );
        const context = { csrfToken: session.csrfToken, flash };
        return sendHtml(reply, articlesPage(context, { project, baseUrl, list, search }));
      },
    );

    app.get<{ Params: ArticleParams }>('/projects/:projectId/articles/:articleId', async (request, reply) => {
      const { session, flash } = sessionOf(request);
      const project = await getProject(deps, request.params.projectId);
      const article = await findArticle(deps, project.id, request.params.articleId);
      if (!article) {
        // A stale link (a bookmark, a tab left open while it was deleted): on to the list.
        const back = { href: `${projectPath(project.id)}/articles`, label: 'Back to articles' };
        const why = `No article "${request.params.articleId}" is in ${project.name}; it may have been deleted.`;
        return sendHtml(reply, messagePage('Not found', why, back), 404);
      }
      const view = await readServedView(deps, project.id, article);
      return sendHtml(reply, articlePage({ csrfToken: session.csrfToken, flash }, project, article, view));
    });

    const action = (verb: string, work: (projectId: string, articleId: string) => Promise<string>) =>
      app.post<{ Params: ArticleParams }>(
        `/projects/:projectId/articles/:articleId/${verb}`,
        async (request, reply) => {
          const { projectId, articleId } = request.params;
          const list = `${projectPath(projectId)}/articles`;
          const back = returnTo(formBody(request).back, list);
          return runAction(deps, request, reply, { form: 'articles', back }, async () => ({
            message: await work(projectId, articleId),
            ...(verb === 'delete' && back.startsWith(`${list}/`) ? { back: list } : {}),
          }));
        },
      );

    action(
      'publish',
      async (projectId, id) => `Published "${(await publishArticle(deps, projectId, id)).title}".`,
    );
    action(
      'unpublish',
      async (projectId, id) => `Unpublished "${(await unpublishArticle(deps, projectId, id)).title}".`,
    );
    action('delete', async (projectId, id) => {
      const { title } = await getArticle(deps, projectId, id);
      await deleteArticle(deps, projectId, id);
      return `Deleted "${title}".`;
    });
    installEditorialActions(app, deps);
  };
}

/** The article page's own forms: each returns to the article page, its outcome beside the form. */
function installEditorialActions(app: Parameters<FastifyPluginAsync>[0], deps: ServiceDeps): void {
  const articleUrl = ({ projectId, articleId }: ArticleParams) =>
    `${projectPath(projectId)}/articles/${encodeURIComponent(articleId)}`;
  const action = (
    path: string,
    target: Omit<FormTarget, 'back'>,
    work: (params: ArticleParams, body: Record<string, string>) => Promise<string>,
  ) =>
    app.post<{ Params: ArticleParams }>(
      `/projects/:projectId/articles/:articleId/${path}`,
      (request, reply) =>
        runAction(deps, request, reply, { ...target, back: articleUrl(request.params) }, async () => ({
          message: await work(request.params, formBody(request)),
        })),
    );

  action('draft/discard', { form: 'draft' }, async ({ projectId, articleId }) => {
    await discardDraft(deps, projectId, articleId);
    return 'Draft discarded.';
  });
  action(
    'schedule',
    { form: 'schedule', labels: SCHEDULE_LABELS },
    async ({ projectId, articleId }, body) => {
      const asked = readScheduleForm(body);
      return describeSchedule(asked, await scheduleArticle(deps, projectId, articleId, asked));
    },
  );
  action('schedule/cancel', { form: 'schedule' }, async ({ projectId, articleId }) => {
    await scheduleArticle(deps, projectId, articleId, { publishAt: null, unpublishAt: null });
    return 'Schedule cancelled.';
  });

  // Posted into a new tab: the answer is a page that goes on to the site, not a redirect, since
  // the dashboard's form-action policy would stop a redirect to another origin.
  app.post<{ Params: ArticleParams }>(
    '/projects/:projectId/articles/:articleId/preview-link',
    async (request, reply) => {
      const { projectId, articleId } = request.params;
      try {
        const project = await getProject(deps, projectId);
        const article = await getArticle(deps, projectId, articleId);
        const link = await createPreviewLink(deps, projectId, articleId);
        const context = { csrfToken: sessionOf(request).session.csrfToken, flash: undefined };
        return sendHtml(reply, previewLinkPage(context, project, article, link));
      } catch (error) {
        return refuseForm(deps, request, reply, { form: 'preview', back: articleUrl(request.params) }, error);
      }
    },
  );
}

/** The article, or undefined when the project has none with that id. */
async function findArticle(deps: ServiceDeps, projectId: string, articleId: string) {
  try {
    return await getArticle(deps, projectId, articleId);
  } catch (error) {
    if (error instanceof AppError && error.code === 'not_found') return undefined;
    throw error;
  }
}

/** Where to go after an action: a page of this project's articles, never another address. */
function returnTo(back: string | undefined, list: string): string {
  const ours = back === list || back?.startsWith(`${list}?`) || back?.startsWith(`${list}/`);
  if (back && ours && /^[A-Za-z0-9\-._~%/?=&+]*$/.test(back) && !back.includes('//')) {
    return back;
  }
  return list;
}
