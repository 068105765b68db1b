import { AppError } from '../errors.ts';
import { createPreviewLink } from '../services/preview-links.ts';
import { onArticle } from './article-id.ts';
import { type CommandSpec, EXIT_OK, openProject, PROJECT_OPTION } from './context.ts';

const EXAMPLE_PREVIEW_URL = "'https://www.example.com/api/preview?slug={slug}&token={token}'";

export const previewLinkCommand: CommandSpec = {
  name: 'articles preview-link',
  summary: "Make a one-hour link to an article's draft on the site",
  usage: 'folio articles preview-link ID [--project ID] [--json]',
  help: `Makes a link that opens the article ID on the site as its draft shows it (or as it is
stored, when it has no draft, published or not), and prints it. The link holds a preview token
(folio_pt_…) that reads this one article and nothing else, for one hour.

The link is the project's preview URL with {token} and {slug} filled in; set it once with
  folio projects update PROJECT --preview-url ${EXAMPLE_PREVIEW_URL}

Options:
${PROJECT_OPTION.help}`,
  options: PROJECT_OPTION.options,
  positionals: ['ID'],
  async run(context, { values, positionals }) {
    const { deps, projectId } = await openProject(context, values);
    const link = await onArticle(deps, projectId, 'articles preview-link', positionals[0]!, (id) =>
      createPreviewLink(deps, projectId, id),
    ).catch((error: unknown) => {
      // The only conflict a preview link has: the project has no preview URL.
      if (!(error instanceof AppError) || error.code !== 'conflict') throw error;
      throw new AppError(
        'conflict',
        `Project ${projectId} has no preview URL, so there is no link to make. Set the site's preview route with: folio projects update ${projectId} --preview-url ${EXAMPLE_PREVIEW_URL}`,
        error.details,
      );
    });
    context.print(
      link,
      () => `Preview link for article ${positionals[0]}, valid until ${link.expiresAt}:\n\n  ${link.url}\n`,
    );
    return EXIT_OK;
  },
};
