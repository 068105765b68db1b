import type { AdminArticle, SchedulePatch } from '@folio/schema';
import { AppError } from '../errors.ts';
import type { FormBody } from './http.ts';
import { utcText } from './pages/layout.ts';

/** The schedule form's labels, which its refusals use in place of the API's field names. */
export const SCHEDULE_LABELS = { publishAt: 'Publish at', unpublishAt: 'Unpublish at' };

// What the page's script puts in the hidden field: an ISO time with its zone.
const ZONED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;
// What a datetime-local field sends (or a text field where the browser has none).
const LOCAL = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/;

/**
 * The schedule the form asks for; an empty field clears that time. Each time comes from the
 * hidden field the page's script fills with the UTC time of what the viewer typed in their own
 * zone; without the script that field is empty and the typed time is read as UTC.
 */
export function readScheduleForm(body: FormBody): SchedulePatch {
  return { publishAt: readTime(body, 'publishAt'), unpublishAt: readTime(body, 'unpublishAt') };
}

function readTime(body: FormBody, name: keyof typeof SCHEDULE_LABELS): string | null {
  const why = 'must be a date and time, such as 2026-11-20 10:00';
  const refuse = () =>
    new AppError('invalid_body', `${SCHEDULE_LABELS[name]} ${why}.`, [{ path: `/${name}`, message: why }]);
  const zoned = (body[name] ?? '').trim();
  if (zoned !== '') {
    if (!ZONED.test(zoned) || Number.isNaN(Date.parse(zoned))) throw refuse();
    return new Date(zoned).toISOString();
  }
  const local = (body[`${name}Local`] ?? '').trim();
  if (local === '') return null;
  const time = Date.parse(`${local.replace(' ', 'T')}Z`);
  // Date.parse rolls 31 February over into March; a real date comes back as typed.
  if (!LOCAL.test(local) || Number.isNaN(time)) throw refuse();
  const iso = new Date(time).toISOString();
  if (iso.slice(0, 10) !== local.slice(0, 10) || iso.slice(11, 16) !== local.slice(11, 16)) throw refuse();
  return iso;
}

/** What saving the schedule did, for the flash: the times set, or what applied at once. */
export function describeSchedule(asked: SchedulePatch, article: AdminArticle): string {
  const parts: string[] = [];
  if (asked.publishAt) {
    parts.push(
      article.publishAt
        ? `publishes ${utcText(article.publishAt)}`
        : `published at once, as ${utcText(asked.publishAt)} has passed`,
    );
  }
  if (asked.unpublishAt) {
    parts.push(
      article.unpublishAt
        ? `unpublishes ${utcText(article.unpublishAt)}`
        : `unpublished at once, as ${utcText(asked.unpublishAt)} has passed`,
    );
  }
  if (parts.length === 0) return 'Nothing is scheduled now.';
  return `Schedule saved: ${parts.join('; ')}.`;
}
