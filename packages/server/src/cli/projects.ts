import { NewProjectSchema, type Project } from '@folio/schema';
import { createProject, listProjects } from '../services/projects.ts';
import { type CommandSpec, EXIT_OK, table, UsageError } from './context.ts';
import { createInputValidator, namingInputs } from './validate.ts';

const PROJECT_FLAGS = { name: '--name', websiteUrl: '--website-url', articlesPath: '--articles-path' };

const createCommand: CommandSpec = {
  name: 'projects create',
  summary: 'Create a project',
  usage: 'folio projects create --name NAME [--website-url URL] [--articles-path PATH] [--json]',
  help: `Creates a project and prints it (with --json: the project object).

Options:
  --name NAME            the project's name (required)
  --website-url URL      the site's origin, e.g. https://www.example.com (sitemap and canonical URLs)
  --articles-path PATH   where articles live on the site, e.g. /blog (default: the site root)`,
  options: {
    name: { type: 'string' },
    'website-url': { type: 'string' },
    'articles-path': { type: 'string' },
  },
  async run(context, { values }) {
    if (values.name === undefined) throw new UsageError('--name is required');
    const input = {
      name: values.name as string,
      ...(values['website-url'] !== undefined ? { websiteUrl: values['website-url'] as string } : {}),
      ...(values['articles-path'] !== undefined ? { articlesPath: values['articles-path'] as string } : {}),
    };
    const project = await namingInputs(PROJECT_FLAGS, async () => {
      createInputValidator(context.config().baseUrl).check(NewProjectSchema, input);
      return createProject(await context.deps(), input);
    });
    context.print(project, () => `Created project ${project.id}\n${describeProject(project)}`);
    return EXIT_OK;
  },
};

const listCommand: CommandSpec = {
  name: 'projects list',
  summary: 'List projects',
  usage: 'folio projects list [--json]',
  help: 'Lists every project, oldest first (with --json: an array of project objects).',
  async run(context) {
    const projects = await listProjects(await context.deps());
    context.print(projects, () =>
      projects.length === 0
        ? 'No projects yet. Create one with: folio projects create --name "My site"'
        : table(
            ['ID', 'NAME', 'WEBSITE URL', 'ARTICLES PATH', 'CREATED'],
            projects.map((p) => [p.id, p.name, p.websiteUrl ?? '-', p.articlesPath || '/', p.createdAt]),
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
    `  created:       ${project.createdAt}`,
  ].join('\n');
}

export const projectCommands = [createCommand, listCommand];
