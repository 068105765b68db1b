import type { FastifyPluginAsync } from 'fastify';
import {
  deleteArticle,
  getArticle,
  listArticles,
  publishArticle,
  unpublishArticle,
} from '../services/articles.ts';
import type { ServiceDeps } from '../services/deps.ts';
import { getProject } from '../services/projects.ts';
import { formBody, runAction, sendHtml, sessionOf } from './http.ts';
import { articlePreviewPage, articlesPage } from './pages/articles.ts';
import { projectPath } from './pages/layout.ts';

type ArticleParams = { projectId: string; articleId: string };
const PAGE_SIZE = 50;
const SEARCH_MAX = 200;

/** The Articles page: list and search, preview, publish, unpublish, delete. */
export function articleRoutes(deps: ServiceDeps): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Params: { projectId: string }; Querystring: { q?: string; page?: string } }>(
      '/projects/:projectId/articles',
      async (request, reply) => {
        const { session, flash } = sessionOf(request);
        const project = await getProject(deps, request.params.projectId);
        const search = String(request.query.q ?? '').slice(0, SEARCH_MAX);
        const page = Math.max(
          1,
          Math.min(1_000_000, Number.parseInt(String(request.query.page ?? '1'), 10) || 1),
        );
        const list = await listArticles(deps, project.id, { page, limit: PAGE_SIZE, titleSearch: search });
        return sendHtml(reply, articlesPage({ csrfToken: session.csrfToken, flash }, project, list, search));
      },
    );

    app.get<{ Params: ArticleParams }>('/projects/:projectId/articles/:articleId', async (request, reply) => {
      const { session, flash } = sessionOf(request);
      const project = await getProject(deps, request.params.projectId);
      const article = await getArticle(deps, project.id, request.params.articleId);
      return sendHtml(reply, articlePreviewPage({ csrfToken: session.csrfToken, flash }, project, article));
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
  };
}

/** Where to go after an action: a page of this project's articles, never another address. */
function returnTo(back: string | undefined, list: string): string {
  const ours = back === list || back?.startsWith(`${list}?`) || back?.startsWith(`${list}/`);
  if (back && ours && /^[A-Za-z0-9\-._~%/?=&+]*$/.test(back) && !back.includes('//')) {
    return back;
  }
  return list;
}
