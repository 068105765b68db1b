import { html } from '@folio/client';
import type { Pagination, Project } from '@folio/schema';
import {
  csrfField,
  fieldError,
  fieldState,
  formMessage,
  layout,
  type PageContext,
  pager,
  projectPath,
  timeTag,
  typed,
} from './layout.ts';

/** The Projects page showing page `page` of the list. */
export function projectsLink(page: number): string {
  return page > 1 ? `/dashboard?page=${page}` : '/dashboard';
}

/** A page of the projects, with a rename form each and paging, and the form that creates one. */
export function projectsPage(
  context: PageContext,
  { data: projects, pagination }: { data: Project[]; pagination: Pagination },
): string {
  const { flash, csrfToken } = context;
  // A rename returns to the page it was made on; the first page is the default.
  const onPage =
    pagination.page > 1 ? html`<input type="hidden" name="page" value="${pagination.page}">` : '';
  const rows = projects.map((project) => {
    const form = `rename-${project.id}`;
    const path = projectPath(project.id);
    return html`<li class="project">
  <div class="project-head">
    <h3><a href="${path}">${project.name}</a></h3>
    <p class="muted"><code>${project.id}</code> · created ${timeTag(project.createdAt)}</p>
    <p><a href="${path}">Delivery</a> · <a href="${path}/articles">Articles</a> · <a href="${path}/settings">Settings</a></p>
  </div>
  <form method="post" action="${path}/rename" class="inline">
    ${csrfField(csrfToken)}${onPage}
    <label for="${form}-name">New name for ${project.name}</label>
    <input id="${form}-name" name="name" required maxlength="200" value="${typed(flash, form, 'name', project.name)}"${fieldState(flash, form, 'name')}>
    <button type="submit" class="button secondary">Rename<span class="sr-only"> “${project.name}”</span></button>
    ${fieldError(flash, form, 'name')}
    ${formMessage(flash, form)}
  </form>
</li>`;
  });
  // The create form is novalidate as Settings' Site and URLs is: the server's refusal, beside the
  // field with what was typed, explains every bad website URL; the browser's check stops only some.
  return layout({
    title: pagination.page > 1 ? `Projects · Page ${pagination.page}` : 'Projects',
    context,
    body: html`<h1>Projects</h1>
<section class="card" aria-labelledby="list-title">
  <h2 id="list-title">Your projects</h2>
  ${projects.length === 0 ? html`<p>No projects yet. Create the first one below.</p>` : html`<ul class="projects">${rows}</ul>`}
  ${pager(pagination, projectsLink, { label: 'Pages', words: ['Previous', 'Next'] })}
</section>
<section class="card" aria-labelledby="create-title">
  <h2 id="create-title">Create a project</h2>
  <form method="post" action="/dashboard/projects" class="stack" novalidate>
    ${csrfField(csrfToken)}
    <label for="create-name">Name</label>
    <input id="create-name" name="name" required maxlength="200" value="${typed(flash, 'create', 'name', '')}"${fieldState(flash, 'create', 'name')}>
    ${fieldError(flash, 'create', 'name')}
    <label for="create-website">Website URL <span class="muted">(optional, e.g. https://www.example.com)</span></label>
    <input id="create-website" name="websiteUrl" type="url" value="${typed(flash, 'create', 'websiteUrl', '')}"${fieldState(flash, 'create', 'websiteUrl')}>
    ${fieldError(flash, 'create', 'websiteUrl')}
    <label for="create-path">Articles live under <span class="muted">(optional, e.g. /blog)</span></label>
    <input id="create-path" name="articlesPath" value="${typed(flash, 'create', 'articlesPath', '')}"${fieldState(flash, 'create', 'articlesPath')}>
    ${fieldError(flash, 'create', 'articlesPath')}
    ${formMessage(flash, 'create')}
    <button type="submit" class="button primary">Create project</button>
  </form>
</section>`,
  });
}
