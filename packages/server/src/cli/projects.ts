import { NewProjectSchema, type Project, ProjectPatchSchema } from '@folio/schema';
import type { Config } from '../config.ts';
import { sqliteFile } from '../db/connect.ts';
import { redactUrl } from '../redact-url.ts';
import { createProject, listProjects, updateProject } from '../services/projects.ts';
import { type CommandSpec, EXIT_OK, type ParsedArgs, table, UsageError } from './context.ts';
import { createInputValidator, namingInputs } from './validate.ts';

const PROJECT_FLAGS = {
  name: '--name',
  websiteUrl: '--website-url',
  articlesPath: '--articles-path',
  previewUrl: '--preview-url',
};

const SETTINGS_OPTIONS = {
  'website-url': { type: 'string' },
  'articles-path': { type: 'string' },
  'preview-url': { type: 'string' },
} as const;

const SETTINGS_HELP = `  --website-url URL      the site's origin, e.g. https://www.example.com (sitemap and canonical URLs)
  --articles-path PATH   where articles live on the site, e.g. /blog (default: the site root)
  --preview-url URL      the site's preview route, holding {token} and optionally {slug}, e.g.
                         'https://www.example.com/api/preview?slug={slug}&token={token}'
                         (\`folio articles preview-link\` fills it in)`;

const createCommand: CommandSpec = {
  name: 'projects create',
  summary: 'Create a project',
  usage:
    'folio projects create --name NAME [--website-url URL] [--articles-path PATH] [--preview-url URL] [--json]',
  help: `Creates a project and prints it (with --json: the project object).

Options:
  --name NAME            the project's name (required)
${SETTINGS_HELP}`,
  options: { name: { type: 'string' }, ...SETTINGS_OPTIONS },
  async run(context, { values }) {
    if (values.name === undefined) throw new UsageError('--name is required');
    const input = { name: values.name as string, ...settingsOf(values) };
    const project = await namingInputs(PROJECT_FLAGS, async () => {
      createInputValidator(context.config().baseUrl).check(NewProjectSchema, input);
      return createProject(await context.deps(), input);
    });
    context.print(project, () => `Created project ${project.id}\n${describeProject(project)}`);
    return EXIT_OK;
  },
};

const updateCommand: CommandSpec = {
  name: 'projects update',
  summary: "Change a project's name or site settings",
  usage:
    'folio projects update PROJECT [--name NAME] [--website-url URL] [--articles-path PATH] [--preview-url URL] [--json]',
  help: `Changes the settings given and keeps the others; prints the project (with --json: the
project object). "none" (or an empty value) removes the website URL or the preview URL.
Published articles are served with their new URLs at once.

Options:
  --name NAME            the project's name
${SETTINGS_HELP}`,
  options: { name: { type: 'string' }, ...SETTINGS_OPTIONS },
  positionals: ['PROJECT'],
  async run(context, { values, positionals }) {
    const patch = {
      ...(values.name !== undefined ? { name: values.name as string } : {}),
      ...settingsOf(values),
    };
    if (Object.keys(patch).length === 0) {
      throw new UsageError('nothing to change: give --name, --website-url, --articles-path or --preview-url');
    }
    const project = await namingInputs(PROJECT_FLAGS, async () => {
      createInputValidator(context.config().baseUrl).check(ProjectPatchSchema, patch);
      return updateProject(await context.deps(), positionals[0]!, patch);
    });
    context.print(project, () => `Updated project ${project.id}\n${describeProject(project)}`);
    return EXIT_OK;
  },
};

/** The site settings given on the command line; "none" removes a URL. */
function settingsOf(values: ParsedArgs['values']) {
  const url = (raw: string | boolean | undefined) => (raw === 'none' ? null : (raw as string));
  return {
    ...(values['website-url'] !== undefined ? { websiteUrl: url(values['website-url']) } : {}),
    ...(values['articles-path'] !== undefined ? { articlesPath: values['articles-path'] as string } : {}),
    ...(values['preview-url'] !== undefined ? { previewUrl: url(values['preview-url']) } : {}),
  };
}

const listCommand: CommandSpec = {
  name: 'projects list',
  summary: 'List projects',
  usage: 'folio projects list [--json]',
  help: 'Lists every project, oldest first (with --json: an array of project objects).',
  async run(context) {
    const projects = await listProjects(await context.deps());
    context.print(projects, () =>
      projects.length === 0
        ? noProjectsText(context.config())
        : table(
            ['ID', 'NAME', 'WEBSITE URL', 'ARTICLES PATH', 'CREATED', 'PREVIEW URL'],
            projects.map((p) => [
              p.id,
              p.name,
              p.websiteUrl ?? '-',
              p.articlesPath || '/',
              p.createdAt,
              p.previewUrl ?? '-',
            ]),
          ),
    );
    return EXIT_OK;
  },
};

function describeProject(project: Project): string {
  return [
    `  name:          ${project.name}`,
    `  website URL:   ${project.websiteUrl ?? '(not set)'}`,
    `  articles path: ${project.articlesPath || '/'}`,
    `  preview URL:   ${project.previewUrl ?? '(not set)'}`,
    `  created:       ${project.createdAt}`,
  ].join('\n');
}

export const projectCommands = [createCommand, listCommand, updateCommand];

// Run outside the service's environment (another directory, a shell without DATABASE_URL), the
// command opens a new, empty database: naming it tells that apart from a server with no projects.
function noProjectsText({ databaseUrl, dataDir }: Config): string {
  const where = databaseUrl ? redactUrl(databaseUrl, 'postgres') : sqliteFile(dataDir);
  return `No projects yet in ${where} (not the server's? Set FOLIO_DATA_DIR or DATABASE_URL as it has them.)
Create one with: folio projects create --name "My site"`;
}
