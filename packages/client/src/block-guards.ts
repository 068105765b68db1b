import type { Block, BlockType, TextRun } from './generated/schema.ts';

/**
 * Shape checks for blocks arriving at the renderer. The API validated them at ingest, but a
 * renderer also meets cached, hand-written or future content, and seed rule 3 says an unknown
 * block renders nothing; a malformed one is treated the same way rather than throwing.
 * Unknown extra fields are ignored so newer content still renders.
 */

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isString = (value: unknown): value is string => typeof value === 'string';
const isOptional = (value: unknown, check: (v: unknown) => boolean) => value === undefined || check(value);
const isOptionalString = (value: unknown) => isOptional(value, isString);
const isOptionalBoolean = (value: unknown) => isOptional(value, (v) => typeof v === 'boolean');
const isOptionalSize = (value: unknown) => isOptional(value, (v) => Number.isInteger(v) && (v as number) > 0);
// A plain loop rather than `every`, which skips the holes of a sparse array.
function isArrayOf(value: unknown, check: (v: unknown) => boolean): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (!check(value[i])) return false;
  return true;
}

/**
 * True when `value` is a text run. An unsafe `href` still passes: the run then renders as text.
 * @example
 * isTextRun({ text: 'hi', bold: true }); // true
 * isTextRun({ text: 1 }); // false
 */
export function isTextRun(value: unknown): value is TextRun {
  return (
    isObject(value) &&
    isString(value.text) &&
    isOptionalBoolean(value.bold) &&
    isOptionalBoolean(value.italic) &&
    isOptionalBoolean(value.code) &&
    isOptionalString(value.href) &&
    isOptionalString(value.rel)
  );
}

const isTextRuns = (value: unknown) => isArrayOf(value, isTextRun);
const isFaqItem = (value: unknown) => isObject(value) && isString(value.question) && isTextRuns(value.answer);

const checks: { [K in BlockType]: (block: Fields) => boolean } = {
  heading: (b) => (b.level === 2 || b.level === 3 || b.level === 4) && isString(b.text),
  paragraph: (b) => isTextRuns(b.content),
  list: (b) => typeof b.ordered === 'boolean' && isArrayOf(b.items, isTextRuns),
  quote: (b) => isTextRuns(b.content) && isOptionalString(b.attribution),
  code: (b) => isString(b.code) && isOptionalString(b.language),
  image: (b) =>
    isString(b.url) &&
    isString(b.alt) &&
    isOptionalString(b.caption) &&
    isOptionalSize(b.width) &&
    isOptionalSize(b.height),
  callout: (b) =>
    (b.variant === 'info' || b.variant === 'tip' || b.variant === 'warning') && isTextRuns(b.content),
  cta: (b) =>
    isString(b.heading) && isString(b.buttonLabel) && isString(b.buttonHref) && isOptionalString(b.body),
  faq: (b) => isArrayOf(b.items, isFaqItem),
  table: (b) => isArrayOf(b.headers, isString) && isArrayOf(b.rows, (row) => isArrayOf(row, isString)),
  video: (b) => b.provider === 'youtube' && isString(b.videoId) && isString(b.url) && isString(b.title),
};

/** Why `checkBlock` refused a value. */
export type BlockProblem = 'unknown_type' | 'malformed';

/**
 * Returns the block when `value` has the shape of a known block type, else why not.
 * @example
 * checkBlock({ type: 'heading', level: 2, text: 'Hi' }); // { block: { type: 'heading', ... } }
 * checkBlock({ type: 'carousel' }); // { problem: 'unknown_type' }
 */
export function checkBlock(value: unknown): { block: Block } | { problem: BlockProblem } {
  if (!isObject(value) || !isString(value.type)) return { problem: 'malformed' };
  if (!Object.hasOwn(checks, value.type)) return { problem: 'unknown_type' };
  const fits = checks[value.type as BlockType](value) && isOptionalString(value.id);
  return fits ? { block: value as Block } : { problem: 'malformed' };
}
