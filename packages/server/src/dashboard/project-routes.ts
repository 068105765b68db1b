import type { FastifyPluginAsync } from 'fastify';
import { AppError } from '../errors.ts';
import { HOUR_MS, type LastHour } from '../http/metrics-history.ts';
import { listArticleSummaries } from '../services/articles.ts';
import { createContentKey, listContentKeys, revokeContentKey } from '../services/content-keys.ts';
import type { ServiceDeps } from '../services/deps.ts';
import { createProject, getProject, listProjectsPage, updateProject } from '../services/projects.ts';
import {
  countRecentDeliveries,
  getWebhook,
  listLoggedDeliveries,
  retryDelivery,
  revealWebhookSecret,
  rotateWebhookSecret,
  sendTestEvent,
  setWebhookUrl,
} from '../services/webhooks.ts';
import { formBody, pageNumber, readPage, runAction, sendHtml, sessionOf } from './http.ts';
import { deliveryPage } from './pages/delivery.ts';
import { deliveryLog, logLink } from './pages/delivery-log.ts';
import { projectPath } from './pages/layout.ts';
import { projectsLink, projectsPage } from './pages/projects.ts';
import { PREVIEW_URL_LABELS, SITE_LABELS, settingsPage } from './pages/settings.ts';
import { trafficFigures } from './pages/traffic.ts';

type ProjectParams = { projectId: string };
// Each form's labels, which its refusals use in place of the API's field names.
const CREATE_LABELS = { name: 'Name', ...SITE_LABELS };
const LOG_SIZE = 20;
// As many as the Articles page shows.
const PROJECTS_PAGE_SIZE = 50;

export interface ProjectRoutesOptions {
  deps: ServiceDeps;
  baseUrl: string;
  /** This server process's counters over the last hour, for the Delivery page. */
  lastHour: () => LastHour;
}

/** Projects, a project's Delivery page with its cards' forms, and its Settings page. */
export function projectRoutes({ deps, baseUrl, lastHour }: ProjectRoutesOptions): FastifyPluginAsync {
  /** A page of the delivery log; past the end (a stale link, a pruned log), the last page. */
  const readLog = (projectId: string, raw: unknown) =>
    readPage(raw, (page) => listLoggedDeliveries(deps, projectId, { page, limit: LOG_SIZE }));
  return async (app) => {
    app.get<{ Querystring: { page?: string } }>('/', async (request, reply) => {
      const { session, flash } = sessionOf(request);
      const list = await readPage(request.query.page, (page) =>
        listProjectsPage(deps, { page, limit: PROJECTS_PAGE_SIZE }),
      );
      return sendHtml(reply, projectsPage({ csrfToken: session.csrfToken, flash }, list));
    });

    app.post('/projects', async (request, reply) =>
      runAction(
        deps,
        request,
        reply,
        { form: 'create', back: '/dashboard', labels: CREATE_LABELS },
        async () => {
          const { name = '', websiteUrl = '', articlesPath = '' } = formBody(request);
          const project = await createProject(deps, {
            name: requireText(name, 'name'),
            websiteUrl,
            articlesPath,
          });
          return { message: `Project "${project.name}" created.`, back: projectPath(project.id) };
        },
      ),
    );

    app.post<{ Params: ProjectParams }>('/projects/:projectId/rename', async (request, reply) => {
      const { projectId } = request.params;
      return runAction(
        deps,
        request,
        reply,
        // Back to the page of the list the form was on, where its outcome is shown.
        {
          form: `rename-${projectId}`,
          back: projectsLink(pageNumber(formBody(request).page)),
          labels: { name: 'New name' },
        },
        async () => {
          const name = requireText(formBody(request).name ?? '', 'name');
          const project = await updateProject(deps, projectId, { name });
          return { message: `Renamed to "${project.name}".` };
        },
      );
    });

    app.get<{ Params: ProjectParams; Querystring: { log?: string } }>(
      '/projects/:projectId',
      async (request, reply) => {
        const { session, flash } = sessionOf(request);
        const { projectId } = request.params;
        const project = await getProject(deps, projectId);
        const [keys, webhook, log, recent] = await Promise.all([
          listContentKeys(deps, projectId),
          getWebhook(deps, projectId),
          readLog(projectId, request.query.log),
          countRecentDeliveries(deps, projectId, deps.now() - HOUR_MS),
        ]);
        const traffic = { lastHour: lastHour(), deliveries: recent };
        return sendHtml(
          reply,
          deliveryPage(
            { csrfToken: session.csrfToken, flash },
            { project, baseUrl, keys, webhook, log, traffic, now: deps.now() },
          ),
        );
      },
    );

    app.get<{ Params: ProjectParams }>('/projects/:projectId/settings', async (request, reply) => {
      const { session, flash } = sessionOf(request);
      const project = await getProject(deps, request.params.projectId);
      const latest = await listArticleSummaries(deps, project.id, { page: 1, limit: 1 });
      return sendHtml(
        reply,
        settingsPage(
          { csrfToken: session.csrfToken, flash },
          { project, baseUrl, exampleSlug: latest.data[0]?.slug ?? 'hello-world' },
        ),
      );
    });

    app.get<{ Params: ProjectParams; Querystring: { page?: string } }>(
      '/projects/:projectId/deliveries',
      async (request, reply) => {
        const { projectId } = request.params;
        const project = await getProject(deps, projectId);
        const log = await readLog(projectId, request.query.page);
        const context = { csrfToken: sessionOf(request).session.csrfToken };
        return sendHtml(reply, String(deliveryLog(context, project, log, deps.now())));
      },
    );

    app.get<{ Params: ProjectParams }>('/projects/:projectId/traffic', async (request, reply) => {
      const { projectId } = request.params;
      await getProject(deps, projectId);
      const deliveries = await countRecentDeliveries(deps, projectId, deps.now() - HOUR_MS);
      return sendHtml(reply, String(trafficFigures({ lastHour: lastHour(), deliveries })));
    });

    installProjectActions(app, deps);
  };
}

function installProjectActions(app: Parameters<FastifyPluginAsync>[0], deps: ServiceDeps): void {
  const action = (
    path: string,
    form: string,
    /** Where the form lives, below the project's path: `#keys` or `/settings#site`. */
    page: string | ((projectId: string, body: Record<string, string>) => string),
    work: (
      projectId: string,
      body: Record<string, string>,
      params: Record<string, string>,
    ) => Promise<{
      message: string;
      secret?: { label: string; value: string };
    }>,
    labels?: Record<string, string>,
  ) =>
    app.post<{ Params: ProjectParams & Record<string, string> }>(
      `/projects/:projectId${path}`,
      async (request, reply) => {
        const { projectId } = request.params;
        const body = formBody(request);
        const back = typeof page === 'string' ? `${projectPath(projectId)}${page}` : page(projectId, body);
        return runAction(deps, request, reply, { form, back, ...(labels ? { labels } : {}) }, () =>
          work(projectId, body, request.params),
        );
      },
    );

  action(
    '/keys',
    'keys',
    '#keys',
    async (projectId, body) => {
      const kind = body.kind ?? 'content';
      if (kind !== 'content' && kind !== 'preview') {
        const why = 'must be a content key or a preview key';
        throw new AppError('invalid_body', `kind ${why}.`, [{ path: '/kind', message: why }]);
      }
      const created = await createContentKey(deps, projectId, requireText(body.name ?? '', 'name'), kind);
      return {
        message: `${kind === 'preview' ? 'Preview' : 'Content'} key "${created.name}" created.`,
        secret: { label: `${kind}-key`, value: created.key },
      };
    },
    { name: 'Key name', kind: 'Kind' },
  );
  action('/keys/:keyId/revoke', 'keys', '#keys', async (projectId, _body, params) => {
    await revokeContentKey(deps, projectId, params.keyId!);
    return { message: 'Key revoked; it no longer works.' };
  });
  action(
    '/webhook',
    'webhook',
    '#webhook',
    async (projectId, body) => {
      const url = (body.url ?? '').trim();
      await setWebhookUrl(deps, projectId, url === '' ? null : url);
      return { message: url === '' ? 'Webhook URL removed.' : 'Webhook URL saved.' };
    },
    { url: 'Webhook URL' },
  );
  action('/webhook/reveal', 'webhook-actions', '#webhook', async (projectId) => ({
    message: 'Signing secret revealed; deliveries are signed with it.',
    secret: { label: 'signing-secret', value: await revealWebhookSecret(deps, projectId) },
  }));
  action('/webhook/rotate', 'webhook-actions', '#webhook', async (projectId) => {
    // A secret never revealed signed nothing, so none goes on signing beside the new one.
    const { signed } = await getWebhook(deps, projectId);
    const value = await rotateWebhookSecret(deps, projectId);
    return {
      message: signed
        ? 'New signing secret made; the previous one keeps signing for 24 hours.'
        : 'New signing secret made; deliveries are signed with it from now on.',
      secret: { label: 'signing-secret', value },
    };
  });
  action('/webhook/test', 'webhook-actions', '#webhook', async (projectId) => {
    await sendTestEvent(deps, projectId);
    return { message: 'Test event queued; its delivery appears in the log.' };
  });
  action(
    '/webhook/deliveries/:deliveryId/retry',
    'webhook-actions',
    // Back to the page of the log the retry was made on.
    (projectId, body) =>
      pageNumber(body.log) > 1
        ? logLink(projectPath(projectId), pageNumber(body.log))
        : `${projectPath(projectId)}#webhook`,
    async (projectId, _body, params) => {
      await retryDelivery(deps, projectId, params.deliveryId!);
      return { message: 'Delivery queued again.' };
    },
  );
  // A field the form did not send is left as it is; an empty Website URL removes it.
  const saveSite = async (projectId: string, { articlesPath, websiteUrl }: Record<string, string>) => {
    await updateProject(deps, projectId, {
      ...(articlesPath === undefined ? {} : { articlesPath }),
      ...(websiteUrl === undefined ? {} : { websiteUrl: websiteUrl.trim() === '' ? null : websiteUrl }),
    });
    return { message: 'Site settings saved.' };
  };
  // No fragment: it would take focus from the refused field, which the page's script focuses.
  action('/settings', 'site', '/settings', saveSite, SITE_LABELS);
  action(
    '/settings/preview',
    'preview-url',
    '/settings',
    async (projectId, { previewUrl = '' }) => {
      const url = previewUrl.trim();
      await updateProject(deps, projectId, { previewUrl: url === '' ? null : url });
      return { message: url === '' ? 'Preview URL removed.' : 'Preview URL saved.' };
    },
    PREVIEW_URL_LABELS,
  );
  // Where the form posted while the card was on the Delivery page: a tab opened before the
  // move still saves.
  action('/site', 'site', '/settings', saveSite, SITE_LABELS);
}

/**
 * A required text field: the management API's schema refuses an empty one, and so do we. The
 * refusal names the field as the API does; the form's labels put it in its own words.
 */
function requireText(value: string, field: string): string {
  const trimmed = value.trim();
  const refuse = (why: string) =>
    new AppError('invalid_body', `${field} ${why}.`, [{ path: `/${field}`, message: why }]);
  if (trimmed === '') throw refuse('must not be empty');
  if (trimmed.length > 200) throw refuse('is longer than 200 characters');
  return trimmed;
}
