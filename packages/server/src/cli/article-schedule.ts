import type { AdminArticle, SchedulePatch } from '@folio/schema';
import { AppError } from '../errors.ts';
import { scheduleArticle } from '../services/schedules.ts';
import { onArticle } from './article-id.ts';
import { articleState } from './article-state.ts';
import {
  type CommandSpec,
  EXIT_OK,
  openProject,
  type ParsedArgs,
  PROJECT_OPTION,
  UsageError,
} from './context.ts';

const FLAGS = { publishAt: '--publish-at', unpublishAt: '--unpublish-at' } as const;
type ScheduleField = keyof typeof FLAGS;

export const scheduleCommand: CommandSpec = {
  name: 'articles schedule',
  summary: 'Publish or unpublish an article at a set time',
  usage: 'folio articles schedule ID [--publish-at TIME] [--unpublish-at TIME] [--project ID] [--json]',
  help: `Sets when the article ID is published, unpublished, or both (give either or both flags;
a flag not given keeps what is set). At --publish-at the article is published as
\`folio articles publish\` would, its draft included; at --unpublish-at it is unpublished.
A running server or worker applies each within seconds of its time, once, and sends its
webhook; a time that has passed applies at once.

TIME is an ISO 8601 time with its zone, such as 2026-11-20T10:00Z (UTC) or
2026-11-20T11:00:00+01:00; "now" applies at once and "none" clears that time.

Options:
  --publish-at TIME     when to publish
  --unpublish-at TIME   when to unpublish; not before the publish time
  --project ID          the project (default: the only project, if there is one)`,
  options: {
    ...PROJECT_OPTION.options,
    'publish-at': { type: 'string' },
    'unpublish-at': { type: 'string' },
  },
  positionals: ['ID'],
  async run(context, { values, positionals }) {
    const asked = schedulePatch(values, Date.now());
    const { deps, projectId } = await openProject(context, values);
    const article = await namingScheduleFlags(asked, () =>
      onArticle(deps, projectId, 'articles schedule', positionals[0]!, (id) =>
        scheduleArticle(deps, projectId, id, asked),
      ),
    );
    context.print(article, () => describeSchedule(asked, article));
    return EXIT_OK;
  },
};

function schedulePatch(values: ParsedArgs['values'], now: number): SchedulePatch {
  const patch: SchedulePatch = {};
  for (const field of Object.keys(FLAGS) as ScheduleField[]) {
    const raw = values[FLAGS[field].slice(2)];
    if (raw !== undefined) patch[field] = parseScheduleTime(field, String(raw), now);
  }
  if (Object.keys(patch).length === 0) throw new UsageError('give --publish-at, --unpublish-at or both');
  return patch;
}

// ISO 8601 as people type it: seconds and their fraction optional, `T` or a space between date
// and time, and a zone always, since a time without one means a different moment on each
// machine.
const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(?:(Z)|([+-])(\d{2})(?::?(\d{2}))?)?$/i;

/** A flag's TIME as the API's ISO string; `null` for "none". Refusals name the flag. */
export function parseScheduleTime(field: ScheduleField, raw: string, now: number): string | null {
  const value = raw.trim();
  if (value.toLowerCase() === 'none') return null;
  if (value.toLowerCase() === 'now') return new Date(now).toISOString();
  const refuse = (why: string) =>
    new AppError('invalid_body', `${FLAGS[field]} ${why}.`, [{ path: `/${field}`, message: why }]);
  const example =
    'such as 2026-11-20T10:00Z or 2026-11-20T11:00+01:00 ("now" applies at once, "none" clears it)';
  const match = ISO_TIME.exec(value);
  if (!match) throw refuse(`must be an ISO 8601 time with a time zone, ${example}, not "${raw}"`);
  const [, year, month, day, hour, minute, second = '00', fraction = '', utc, sign, zoneHour, zoneMinute] =
    match as unknown as (string | undefined)[];
  if (!utc && !sign) {
    throw refuse(`"${raw}" has no time zone: add Z for UTC or an offset, ${example}`);
  }
  const zone = utc ? 'Z' : `${sign}${zoneHour}:${zoneMinute ?? '00'}`;
  const millis = fraction.slice(1, 4).padEnd(3, '0');
  const time = Date.parse(`${year}-${month}-${day}T${hour}:${minute}:${second}.${millis}${zone}`);
  // Date.parse rolls 31 February over into March, and takes an hour of 24.
  const real =
    !Number.isNaN(time) &&
    Number(day) <= daysIn(Number(year), Number(month)) &&
    Number(hour) < 24 &&
    Number(zoneHour ?? 0) < 24 &&
    Number(zoneMinute ?? 0) < 60;
  if (!real) throw refuse(`"${raw}" is not a real date and time`);
  return new Date(time).toISOString();
}

function daysIn(year: number, month: number): number {
  const date = new Date(0);
  // Day 0 of the next month is the last day of this one.
  date.setUTCFullYear(year, month, 0);
  return date.getUTCDate();
}

/** The service's refusal of an unpublish before the publish, in the flags' words. */
async function namingScheduleFlags<T>(asked: SchedulePatch, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const ordering =
      error instanceof AppError &&
      error.code === 'invalid_body' &&
      error.details?.[0]?.path === '/unpublishAt';
    if (!ordering) throw error;
    const publish =
      asked.publishAt !== undefined
        ? '--publish-at'
        : 'the publish time already set (change it with --publish-at, or clear it with --publish-at none)';
    throw new AppError(
      'invalid_body',
      `--unpublish-at is earlier than ${publish}: an article cannot be unpublished before it is published.`,
      error.details,
    );
  }
}

/** What the command did: each time set or cleared, or applied at once because it has passed. */
export function describeSchedule(asked: SchedulePatch, article: AdminArticle): string {
  const parts: string[] = [];
  const describe = (field: ScheduleField, verb: string) => {
    const time = asked[field];
    if (time === undefined) return;
    if (time === null) parts.push(`no ${verb} time`);
    else if (article[field] === time) parts.push(`${verb}es ${time}`);
    else parts.push(`${verb}ed at once (${time} has passed)`);
  };
  describe('publishAt', 'publish');
  describe('unpublishAt', 'unpublish');
  return `Article ${article.id}: ${parts.join('; ')}. It is ${articleState(article)}.`;
}
