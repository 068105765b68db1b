import { html } from '@folio/client';
import { layout } from './layout.ts';

/**
 * The sign-in form; the admin token only ever travels in this form's POST body. `next` is the
 * dashboard page to return to, already checked to be one.
 */
export function signInPage({ error, next }: { error?: string; next?: string | undefined } = {}): string {
  return layout({
    title: 'Sign in',
    refused: error !== undefined,
    body: html`<section class="card narrow" aria-labelledby="sign-in-title">
  <h1 id="sign-in-title">Sign in</h1>
  <p>Use the server's admin token (<code>FOLIO_ADMIN_TOKEN</code>, or the token printed at the first start).</p>
  <div aria-live="polite">${error ? html`<p class="form-error" role="alert" id="token-error">${error}</p>` : ''}</div>
  <form method="post" action="/dashboard/sign-in" class="stack">
    ${next ? html`<input type="hidden" name="next" value="${next}">` : ''}
    <label for="token">Admin token</label>
    <input id="token" name="token" type="password" autocomplete="current-password" required
      spellcheck="false"${error ? html` aria-invalid="true" aria-describedby="token-error"` : ''}>
    <button type="submit" class="button primary">Sign in</button>
  </form>
</section>`,
  });
}

/** A page for a failure outside any form: a missing project, an expired session. */
export function messagePage(
  title: string,
  message: string,
  link = { href: '/dashboard', label: 'Back to projects' },
): string {
  return layout({
    title,
    body: html`<section class="card narrow"><h1>${title}</h1><p>${message}</p><p><a href="${link.href}">${link.label}</a></p></section>`,
  });
}
