// Folio dashboard: progressive enhancement only. Every form works without this file.
const REFRESH_MS = 3000;

function announce(message) {
  const region = document.querySelector('[data-announcer]');
  if (!region) return;
  region.textContent = '';
  window.setTimeout(() => {
    region.textContent = message;
  }, 50);
}

async function copyText(button) {
  const source = document.getElementById(button.dataset.copy);
  if (!source) return;
  const text = source.textContent;
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // Clipboard access can be refused (http, permissions): select the text for a manual copy.
    const range = document.createRange();
    range.selectNodeContents(source);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    announce('Selected: press Ctrl+C or Cmd+C to copy');
    return;
  }
  const label = button.textContent;
  button.textContent = 'Copied';
  announce('Copied to the clipboard');
  window.setTimeout(() => {
    button.textContent = label;
  }, 1500);
}

function enableCopyButtons(root) {
  for (const button of root.querySelectorAll('button[data-copy]')) button.hidden = false;
}

// The delivery log (and the Last hour card beside it) reloads itself while the page is visible;
// it waits while focus is inside it so a keyboard user's place is not lost.
function refreshLive(container) {
  let stopped = false;
  let shown = container.innerHTML;
  const tick = async () => {
    if (stopped || document.hidden || container.contains(document.activeElement)) return;
    try {
      const response = await fetch(container.dataset.refresh, {
        credentials: 'same-origin',
        headers: { accept: 'text/html' },
      });
      if (response.status === 401) {
        stopped = true;
        // One notice for the page: a quiet part (the Last hour card) stops without its own.
        if (!('refreshQuiet' in container.dataset)) showRefreshStopped(container);
        return;
      }
      if (!response.ok) return;
      const markup = await response.text();
      if (markup !== shown) {
        // A delivery's detail the viewer opened stays open across the refresh.
        const open = [...container.querySelectorAll('details[open][id]')].map((details) => details.id);
        container.innerHTML = markup;
        shown = markup;
        for (const id of open) document.getElementById(id)?.setAttribute('open', '');
        enableCopyButtons(container);
      }
    } catch {
      // A network hiccup: the next tick tries again.
    }
  };
  window.setInterval(tick, REFRESH_MS);
}

// Signed out (elsewhere, or the session's time ran out): the log stays as it was, so it says that
// it is no longer live, with a sign-in that comes back to this page.
function showRefreshStopped(container) {
  const note = document.createElement('p');
  note.className = 'form-error';
  note.setAttribute('role', 'alert');
  const link = document.createElement('a');
  link.href = `/dashboard/sign-in?${new URLSearchParams({ next: `${location.pathname}${location.search}` })}`;
  link.textContent = 'Sign in';
  note.append('Signed out: this log no longer refreshes. ', link, ' again to see new deliveries.');
  container.before(note);
}

// A confirmation disclosure moves focus to its confirm button when it opens; Escape or its Cancel
// button closes it, and focus goes back to what opened it.
function enhanceConfirmations() {
  for (const details of document.querySelectorAll('details.confirm')) {
    const close = () => {
      details.open = false;
      details.querySelector('summary')?.focus();
    };
    details.addEventListener('toggle', () => {
      if (details.open) details.querySelector('button[type="submit"]')?.focus();
    });
    details.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && details.open) close();
    });
    const cancel = details.querySelector('button[data-cancel]');
    if (cancel) {
      cancel.hidden = false;
      cancel.addEventListener('click', close);
    }
  }
}

document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null;
  if (button) void copyText(button);
});

// After a refused form, focus the field it names so the error beside it is read out, else the
// control the error describes, else the error itself; after a success, focus its message, which
// sits with the form (or atop the page), or the box that holds it with a value shown once.
function focusOutcome() {
  const invalid =
    document.querySelector('[aria-invalid="true"]') ??
    document.querySelector('[aria-describedby$="-error"]') ??
    document.querySelector('.form-error');
  const message =
    invalid ??
    document.querySelector('[data-outcome]') ??
    document.querySelector('.form-status') ??
    document.querySelector('.flash');
  if (!message) return;
  if (!message.matches('input, select, textarea, button')) message.tabIndex = -1;
  message.focus();
}

const pad = (value) => String(value).padStart(2, '0');
const viewerZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

// The server knows no viewer's zone: it writes times in UTC, and this adds the local time.
function showLocalTimes() {
  const format = new Intl.DateTimeFormat(undefined, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
  });
  for (const local of document.querySelectorAll('[data-local-time]')) {
    const time = new Date(local.dataset.localTime);
    if (Number.isNaN(time.getTime())) continue;
    local.textContent = format.format(time);
    local.hidden = false;
    const utc = local.parentElement?.querySelector('time');
    if (utc) {
      utc.textContent = `(${utc.textContent})`;
      utc.classList.add('muted');
    }
  }
}

/** A Date as a datetime-local field's value, in the viewer's zone. */
function localInputValue(date) {
  const day = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  return `${day}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

// Schedule fields are typed in the viewer's zone: shown converted from the stored UTC time, and
// sent as UTC in the hidden field beside each (the server reads a field without it as UTC).
function enhanceScheduleForms() {
  const forms = new Set([...document.querySelectorAll('input[data-utc-field]')].map((field) => field.form));
  for (const form of forms) {
    const fields = [...form.querySelectorAll('input[data-utc-field]')];
    for (const field of fields) {
      const stored = new Date(field.dataset.utc);
      if (field.dataset.utc && !Number.isNaN(stored.getTime())) field.value = localInputValue(stored);
    }
    const note = form.querySelector('[data-zone-note]');
    if (note) note.textContent = `Times are in your time zone, ${viewerZone()}.`;
    // Without this script the browser refuses a half-typed time itself; with it, the refusal
    // is the page's own, worded and marked as the server's are.
    form.noValidate = true;
    form.addEventListener('submit', (event) => {
      // A datetime-local field with part of a date typed (or one part deleted) has the value "",
      // which would read as "no time" and cancel what is scheduled.
      const half = fields.find((field) => field.validity.badInput);
      if (half) {
        event.preventDefault();
        refuseField(
          form,
          half,
          `${half.dataset.label} is not a whole date and time: finish it, or clear it for none.`,
        );
        return;
      }
      for (const field of fields) {
        const hidden = form.elements.namedItem(field.dataset.utcField);
        const time = new Date(field.value);
        hidden.value = field.value && !Number.isNaN(time.getTime()) ? time.toISOString() : '';
      }
    });
  }
}

// Marks a field refused as a refused form comes back from the server: the message after it,
// read out, and focus on the field.
function refuseField(form, field, message) {
  for (const marked of form.querySelectorAll('[aria-invalid="true"]')) {
    marked.removeAttribute('aria-invalid');
    marked.removeAttribute('aria-describedby');
  }
  for (const old of form.querySelectorAll('.form-error')) old.remove();
  const error = document.createElement('p');
  error.className = 'form-error field-error';
  error.setAttribute('role', 'alert');
  error.id = `${field.id}-error`;
  error.textContent = message;
  field.after(error);
  field.setAttribute('aria-invalid', 'true');
  field.setAttribute('aria-describedby', error.id);
  field.focus();
}

// "Preview on site" answers, in its new tab, with the link: go on to the site at once, with no
// way back to this tab from the site's page.
function openPreviewLink() {
  const link = document.querySelector('a[data-open-preview]');
  if (!link) return;
  window.opener = null;
  window.location.replace(link.href);
}

// Once loaded: going to the address's fragment (#keys) moves focus to the document, so focus
// given before it would be lost.
window.addEventListener('load', () => setTimeout(focusOutcome));

document.addEventListener('DOMContentLoaded', () => {
  openPreviewLink();
  showLocalTimes();
  enhanceScheduleForms();
  enableCopyButtons(document);
  enhanceConfirmations();
  for (const container of document.querySelectorAll('[data-refresh]')) refreshLive(container);
});
