import type { AdminArticle } from '@folio/schema';
import {
  deleteArticle,
  getArticle,
  listArticles,
  publishArticle,
  unpublishArticle,
} from '../services/articles.ts';
import { wholeText } from '../services/json-runs.ts';
import { onArticle } from './article-id.ts';
import { scheduleCommand } from './article-schedule.ts';
import { articleState, draftLines, scheduleText } from './article-state.ts';
import { type CommandSpec, EXIT_OK, openProject, PROJECT_OPTION, table, wholeNumber } from './context.ts';
import { previewLinkCommand } from './preview-link.ts';

const listCommand: CommandSpec = {
  name: 'articles list',
  summary: 'List the articles of a project',
  usage: 'folio articles list [--project ID] [--search TEXT] [--page N] [--limit N] [--json]',
  help: `Lists every article of the project, published or not, most recently updated first (with
--json: { data, pagination } as the management API answers). STATE is published, changed
(published, with a draft waiting) or unpublished; SCHEDULE the publish and unpublish times set.

Options:
${PROJECT_OPTION.help}
  --search TEXT  only articles whose title contains TEXT
  --page N       page number (default 1)
  --limit N      articles per page, at most 100 (default 20)`,
  options: {
    ...PROJECT_OPTION.options,
    search: { type: 'string' },
    page: { type: 'string' },
    limit: { type: 'string' },
  },
  async run(context, { values }) {
    const page = wholeNumber('--page', values.page, 1);
    const limit = wholeNumber('--limit', values.limit, 20);
    const { deps, projectId } = await openProject(context, values);
    const search = values.search as string | undefined;
    const { data, pagination } = await listArticles(deps, projectId, {
      page,
      limit,
      ...(search !== undefined ? { titleSearch: search } : {}),
    });
    const result = { data: JSON.parse(await wholeText(data)) as AdminArticle[], pagination };
    context.print(result, () => {
      const { page: at, totalPages, total } = result.pagination;
      if (total === 0) {
        return search === undefined
          ? 'No articles yet. Add some with: folio import FILE (one JSON article a line)'
          : `No article title contains "${search}".`;
      }
      const rows = result.data.map((a) => [
        a.id,
        a.slug,
        articleState(a),
        scheduleText(a),
        a.updatedAt,
        a.title,
      ]);
      return `${table(['ID', 'SLUG', 'STATE', 'SCHEDULE', 'UPDATED', 'TITLE'], rows)}\n(page ${at} of ${totalPages}, ${total} in all)`;
    });
    return EXIT_OK;
  },
};

const getCommand: CommandSpec = {
  name: 'articles get',
  summary: 'Show one article',
  usage: 'folio articles get ID [--project ID] [--json]',
  help: `Shows the article ID: its state, draft and schedule, slug, title, blocks and SEO fields (with
--json: the article object as the management API answers it). The state is published, changed
(published, with a draft waiting) or unpublished; the draft line says what the draft changes.

Options:
${PROJECT_OPTION.help}`,
  options: PROJECT_OPTION.options,
  positionals: ['ID'],
  async run(context, { values, positionals }) {
    const { deps, projectId } = await openProject(context, values);
    const article = await onArticle(deps, projectId, 'articles get', positionals[0]!, (id) =>
      getArticle(deps, projectId, id),
    );
    context.print(article, () => describeArticle(article));
    return EXIT_OK;
  },
};

const publishCommand: CommandSpec = {
  name: 'articles publish',
  summary: 'Publish an article',
  usage: 'folio articles publish ID [--project ID] [--json]',
  help: `Publishes the article ID: the delivery API serves it at once and, if the project has a
webhook, a content.created event is sent. An article with a draft serves the draft from now on
(content.updated when it was already published); the draft and a scheduled publish time clear.
Publishing a published article without a draft changes nothing.

Options:
${PROJECT_OPTION.help}`,
  options: PROJECT_OPTION.options,
  positionals: ['ID'],
  async run(context, { values, positionals }) {
    const { deps, projectId } = await openProject(context, values);
    const article = await onArticle(deps, projectId, 'articles publish', positionals[0]!, (id) =>
      publishArticle(deps, projectId, id),
    );
    context.print(article, () => `Published ${article.id} ("${article.title}", slug ${article.slug}).`);
    return EXIT_OK;
  },
};

const unpublishCommand: CommandSpec = {
  name: 'articles unpublish',
  summary: 'Unpublish an article (keep it, stop serving it)',
  usage: 'folio articles unpublish ID [--project ID] [--json]',
  help: `Unpublishes the article ID: the delivery API stops serving it at once and, if the project
has a webhook, a content.unpublished event is sent. The article and its draft are kept (its
schedule clears); publish it again with \`folio articles publish ID\`.

Options:
${PROJECT_OPTION.help}`,
  options: PROJECT_OPTION.options,
  positionals: ['ID'],
  async run(context, { values, positionals }) {
    const { deps, projectId } = await openProject(context, values);
    const article = await onArticle(deps, projectId, 'articles unpublish', positionals[0]!, (id) =>
      unpublishArticle(deps, projectId, id),
    );
    context.print(article, () => `Unpublished ${article.id} ("${article.title}"); it is no longer served.`);
    return EXIT_OK;
  },
};

const deleteCommand: CommandSpec = {
  name: 'articles delete',
  summary: 'Delete an article for good',
  usage: 'folio articles delete ID [--project ID] [--json]',
  help: `Deletes the article ID for good (to keep it but stop serving it, use \`folio articles
unpublish\`). If it was published, a content.deleted event is sent.

Options:
${PROJECT_OPTION.help}`,
  options: PROJECT_OPTION.options,
  positionals: ['ID'],
  async run(context, { values, positionals }) {
    const { deps, projectId } = await openProject(context, values);
    const id = positionals[0]!;
    await onArticle(deps, projectId, 'articles delete', id, () => deleteArticle(deps, projectId, id));
    context.print({ id, deleted: true }, () => `Deleted article ${id}.`);
    return EXIT_OK;
  },
};

const INDENT = ' '.repeat(14);

function describeArticle(article: AdminArticle): string {
  const types = [...new Set(article.blocks.map((block) => block.type))];
  // An object (the ingested jsonLd) as JSON, not "[object Object]".
  const seo = Object.entries(article.seo).map(
    ([field, value]) =>
      `${field}: ${typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)}`,
  );
  return [
    `${article.title}`,
    `  id:         ${article.id}`,
    `  slug:       ${article.slug}`,
    `  state:      ${articleState(article)}${article.publishedAt ? ` (first published ${article.publishedAt})` : ''}`,
    `  draft:      ${draftLines(article).join(`\n${INDENT}`)}`,
    `  schedule:   ${scheduleText(article)}`,
    `  updated:    ${article.updatedAt}`,
    `  created:    ${article.createdAt}`,
    `  blocks:     ${article.blocks.length}${types.length > 0 ? ` (${types.join(', ')})` : ''}`,
    `  related:    ${article.related.length > 0 ? article.related.join(', ') : '-'}`,
    `  seo:        ${seo.length > 0 ? seo.join(`\n${INDENT}`) : '-'}`,
  ].join('\n');
}

export const articleCommands = [
  listCommand,
  getCommand,
  publishCommand,
  unpublishCommand,
  scheduleCommand,
  previewLinkCommand,
  deleteCommand,
];
