import { html, type SafeHtml } from '@folio/client';
import type { Pagination } from '@folio/schema';
import type { Flash } from '../session.ts';

export interface PageContext {
  csrfToken: string;
  flash: Flash | undefined;
}

export interface ProjectNav {
  id: string;
  name: string;
  current: 'delivery' | 'articles' | 'settings';
}

/**
 * The whole document: landmarks, skip link, navigation, sign-out, flash region. The title starts
 * with "Error: " when a form was refused (by default, when the flash is a refusal), so the
 * outcome is the first thing a screen reader says of the page.
 */
export function layout(options: {
  title: string;
  body: SafeHtml;
  context?: PageContext;
  project?: ProjectNav;
  refused?: boolean;
}): string {
  const { body, context, project } = options;
  const refused = options.refused ?? context?.flash?.kind === 'error';
  const title = `${refused ? 'Error: ' : ''}${options.title}`;
  return `<!doctype html>\n${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title} · Folio dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/dashboard/assets/dashboard.css">
<script src="/dashboard/assets/dashboard.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <a class="brand" href="/dashboard">Folio</a>
  ${context ? navigation(context, project) : ''}
</header>
<main id="main" tabindex="-1">
${context ? flashMessage(context.flash) : ''}
${body}
</main>
<div class="sr-only" role="status" aria-live="polite" data-announcer></div>
</body>
</html>`}\n`;
}

/** A project's dashboard address; its pages hang below it (`/articles`, `/settings`). */
export function projectPath(projectId: string): string {
  return `/dashboard/projects/${encodeURIComponent(projectId)}`;
}

function navigation(context: PageContext, project: ProjectNav | undefined): SafeHtml {
  const link = (href: string, label: string, current: boolean) =>
    html`<li><a href="${href}"${current ? html` aria-current="page"` : ''}>${label}</a></li>`;
  const base = project ? projectPath(project.id) : '';
  return html`<nav aria-label="Main">
    <ul>
      ${link('/dashboard', 'Projects', !project)}
      ${project ? link(base, `${project.name}: Delivery`, project.current === 'delivery') : ''}
      ${project ? link(`${base}/articles`, 'Articles', project.current === 'articles') : ''}
      ${project ? link(`${base}/settings`, 'Settings', project.current === 'settings') : ''}
    </ul>
  </nav>
  <form method="post" action="/dashboard/sign-out" class="sign-out">
    ${csrfField(context.csrfToken)}
    <button type="submit" class="button secondary">Sign out</button>
  </form>`;
}

/** The page-level message; outcomes that belong to a form are shown with it instead. */
function flashMessage(flash: Flash | undefined): SafeHtml {
  const visible = flash && !flash.form;
  return html`<div class="flash-region" aria-live="polite">${
    visible
      ? html`<p class="flash ${flash.kind}" role="${flash.kind === 'error' ? 'alert' : 'status'}">${flash.message}</p>`
      : ''
  }</div>`;
}

export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${token}">`;
}

/**
 * The outcome of `form`'s last POST, shown with the form: its success, or its refusal when that
 * names no one field (one that does is shown beside the field).
 */
export function formMessage(flash: Flash | undefined, form: string): SafeHtml | '' {
  if (flash?.form !== form) return '';
  if (flash.kind === 'success') {
    return html`<p class="form-status" role="status" id="${form}-status">${flash.message}</p>`;
  }
  if (flash.field) return '';
  return html`<p class="form-error" role="alert" id="${form}-error">${flash.message}</p>`;
}

/** The refusal of `form` that names `field`, shown beside that field. */
export function fieldError(flash: Flash | undefined, form: string, field: string): SafeHtml | '' {
  if (flash?.kind !== 'error' || flash.form !== form || flash.field !== field) return '';
  return html`<p class="form-error field-error" role="alert" id="${form}-error">${flash.message}</p>`;
}

/**
 * The attributes of a form's field: `aria-invalid` and the message's id on the field the last
 * refusal named, and on no other.
 */
export function fieldState(flash: Flash | undefined, form: string, field: string): SafeHtml | '' {
  if (flash?.kind !== 'error' || flash.form !== form || flash.field !== field) return '';
  return html` aria-invalid="true" aria-describedby="${form}-error"`;
}

/** What the user typed into a refused form, or the stored value. */
export function typed(flash: Flash | undefined, form: string, field: string, stored: string): string {
  if (flash?.kind === 'error' && flash.form === form && flash.values?.[field] !== undefined) {
    return flash.values[field]!;
  }
  return stored;
}

/** Points a control at the form's refusal: for a button whose form has no field to mark. */
export function describedBy(flash: Flash | undefined, form: string): SafeHtml | '' {
  return flash?.kind === 'error' && flash.form === form && !flash.field
    ? html` aria-describedby="${form}-error"`
    : '';
}

/** An ISO time as a readable UTC date with a machine-readable `<time>`. */
export function timeTag(iso: string | null, empty = '—'): SafeHtml | string {
  if (!iso) return empty;
  return html`<time datetime="${iso}">${utcText(iso)}</time>`;
}

/**
 * A time in the viewer's own zone and in UTC. The server cannot know the zone, so the page's
 * script writes the local time in (`data-local-time`); without the script the UTC time stands
 * alone and says so.
 */
export function zonedTime(iso: string): SafeHtml {
  return html`<span class="zoned"><span class="local-time" data-local-time="${iso}" hidden></span> <time datetime="${iso}">${utcText(iso)}</time></span>`;
}

/** `2026-11-20 10:00 UTC`: an ISO time as the dashboard writes it in UTC. */
export function utcText(iso: string): string {
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * Links to the pages before and after this one, and where this one is; nothing for one page.
 * `words` name the links (Previous/Next; Newer/Older for a log).
 */
export function pager(
  pagination: Pagination,
  link: (page: number) => string,
  options: { label: string; words: [previous: string, next: string] },
): SafeHtml | '' {
  if (pagination.totalPages <= 1) return '';
  const [previous, next] = options.words;
  return html`<nav aria-label="${options.label}" class="pager">
    ${pagination.hasPrev ? html`<a href="${link(pagination.page - 1)}" rel="prev">${previous}</a>` : ''}
    <span>Page ${pagination.page} of ${pagination.totalPages}</span>
    ${pagination.hasNext ? html`<a href="${link(pagination.page + 1)}" rel="next">${next}</a>` : ''}
  </nav>`;
}

/**
 * A destructive action behind a disclosure: works without JavaScript, one extra deliberate click.
 * Its summary closes it again; the script adds a Cancel button beside the confirm button.
 */
export function confirmButton(options: {
  action: string;
  csrfToken: string;
  label: string;
  question: string;
  confirmLabel: string;
  small?: boolean;
  /**
   * What a row's action acts on (an article's title, a key's name), added to both controls' names
   * out of sight: a screen reader's list of a page's buttons shows them without their rows.
   */
  subject?: string;
  /** Hidden fields the form sends besides the token: `back`, the page to return to. */
  fields?: Record<string, string>;
}): SafeHtml {
  const subject =
    options.subject === undefined ? '' : html`<span class="sr-only"> “${options.subject}”</span>`;
  const fields = Object.entries(options.fields ?? {}).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  );
  return html`<details class="confirm">
    <summary class="button danger${options.small ? ' small' : ''}">${options.label}${subject}</summary>
    <form method="post" action="${options.action}">
      ${csrfField(options.csrfToken)}${fields}
      <p>${options.question}</p>
      <button type="submit" class="button danger">${options.confirmLabel}${subject}</button>
      <button type="button" class="button secondary" data-cancel hidden>Cancel</button>
    </form>
  </details>`;
}

/** A value with a copy button (the button appears only when the script runs). */
export function copyable(id: string, value: string, label: string): SafeHtml {
  return html`<span class="copyable"><code id="${id}">${value}</code><button type="button" class="button small secondary" data-copy="${id}" hidden aria-label="Copy ${label}">Copy</button></span>`;
}
