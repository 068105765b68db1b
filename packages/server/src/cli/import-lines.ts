import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import type { ArticleInput } from '@folio/schema';
import { AppError, type ErrorDetail } from '../errors.ts';
import { JSON_BODY_LIMIT } from '../http/json-body.ts';
import { MAX_DETAILS } from '../http/validation.ts';
import type { ImportItem } from '../services/article-transfer.ts';
import { describeDetails, type InputValidator } from './validate.ts';

/** A line that was not imported, and why. */
export interface InvalidLine {
  line: number;
  id: string | null;
  code: string;
  message: string;
  details: ErrorDetail[];
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
// Bytes read at a time; a line longer than the 1 MiB an article may be is never held whole.
const CHUNK_BYTES = 1024 * 1024;

/** What the check of a file found: the lines not to import, and how many are to be. */
export interface CheckedFile {
  invalid: InvalidLine[];
  /** Lines that are neither blank nor invalid: what the import writes. */
  importable: number;
  /** Lines that are not blank, invalid ones included. */
  filled: number;
}

/**
 * Checks every line of the file, reading it a chunk at a time: valid lines are counted, the
 * others reported by line number. Nothing of a valid line is kept, so a file of any size is
 * checked in little memory; `itemsOf` reads it again to write. A byte order mark, as some
 * editors save, is no part of the first line.
 */
export async function checkLines(
  file: string,
  validator: InputValidator,
  onProgress: (done: number, total: number) => void,
): Promise<CheckedFile> {
  const total = await countLines(file);
  const checked: CheckedFile = { invalid: [], importable: 0, filled: 0 };
  const firstLineOf = new Map<string, number>();
  for await (const { line, bytes } of readLines(file)) {
    onProgress(line, total);
    const parsed = lineItem(line, bytes, validator);
    if (parsed === undefined) continue;
    checked.filled++;
    if ('code' in parsed) {
      checked.invalid.push(parsed);
      continue;
    }
    // Two lines for one article (or two drafts of one) is a mistake in the file; the second
    // would silently win. An article line and a draft line of one id are what export writes.
    const key = parsed.draft ? `draft ${parsed.id}` : parsed.id;
    const first = firstLineOf.get(key);
    if (first === undefined) {
      firstLineOf.set(key, parsed.line);
      checked.importable++;
    } else {
      const message = parsed.draft
        ? `is a second draft of "${parsed.id}" (the first is on line ${first})`
        : `repeats the id "${parsed.id}" of line ${first}`;
      checked.invalid.push(problem(parsed.line, parsed.id, message, '/id'));
    }
  }
  return checked;
}

/**
 * The import items of the file, read again after `checkLines`: every line it did not report.
 * A line that no longer passes means the file changed in between, and the import stops.
 */
export async function* itemsOf(
  file: string,
  validator: InputValidator,
  checked: CheckedFile,
): AsyncGenerator<ImportItem> {
  const skipped = new Set(checked.invalid.map((entry) => entry.line));
  for await (const { line, bytes } of readLines(file)) {
    if (skipped.has(line)) continue;
    const parsed = lineItem(line, bytes, validator);
    if (parsed === undefined) continue;
    if ('code' in parsed) {
      throw new AppError(
        'conflict',
        `The file ${file} changed during the import: line ${line} ${parsed.message}.`,
      );
    }
    yield parsed;
  }
}

/** A line's import item, what is wrong with it, or undefined for a blank line. */
function lineItem(
  line: number,
  bytes: Buffer | null,
  validator: InputValidator,
): ImportItem | InvalidLine | undefined {
  // As the API: a larger body answers 413, so no article comes in bigger by the back door.
  if (bytes === null) return problem(line, null, `is over the 1 MiB an article may be`, '/');
  if (bytes.length > JSON_BODY_LIMIT) {
    return problem(line, null, `is ${bytes.length} bytes, over the 1 MiB an article may be`, '/');
  }
  // Decoding would put U+FFFD in place of each bad byte and store it as text.
  if (!isUtf8(bytes)) return problem(line, null, 'is not valid UTF-8', '/');
  const raw = bytes.toString('utf8');
  if (raw.trim() === '') return undefined;
  return parseLine(raw, line, validator);
}

/**
 * The file's lines, numbered from 1, without their `\n` or `\r\n`; the newline that ends the
 * last starts none. A line over twice the body limit comes as null: its bytes are not kept.
 */
async function* readLines(file: string): AsyncGenerator<{ line: number; bytes: Buffer | null }> {
  const stream = fs.createReadStream(file, { highWaterMark: CHUNK_BYTES });
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let oversized = false;
  let line = 0;
  let first = true;
  const take = (tail: Buffer) => {
    const whole = oversized ? null : Buffer.concat([...pending, tail]);
    pending = [];
    pendingBytes = 0;
    oversized = false;
    return { line: ++line, bytes: whole && whole.at(-1) === 0x0d ? whole.subarray(0, -1) : whole };
  };
  for await (const read of stream) {
    let chunk = read as Buffer;
    if (first) {
      first = false;
      if (chunk.subarray(0, 3).equals(UTF8_BOM)) chunk = chunk.subarray(3);
    }
    let start = 0;
    for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
      yield take(chunk.subarray(start, end));
      start = end + 1;
    }
    const rest = chunk.subarray(start);
    if (oversized || pendingBytes + rest.length > 2 * JSON_BODY_LIMIT) {
      oversized = true;
      pending = [];
    } else if (rest.length > 0) {
      // A copy: the stream may hand its buffer over to the next read.
      pending.push(Buffer.from(rest));
    }
    pendingBytes += rest.length;
  }
  if (pendingBytes > 0) yield take(Buffer.alloc(0));
}

/** How many lines `readLines` will give: for the progress bar. */
async function countLines(file: string): Promise<number> {
  let lines = 0;
  let last = 0x0a;
  for await (const read of fs.createReadStream(file, { highWaterMark: CHUNK_BYTES })) {
    const chunk = read as Buffer;
    for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, at + 1)) lines++;
    if (chunk.length > 0) last = chunk[chunk.length - 1]!;
  }
  return last === 0x0a ? lines : lines + 1;
}

function parseLine(raw: string, line: number, validator: InputValidator): ImportItem | InvalidLine {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return problem(line, null, `is not valid JSON: ${describeJsonError((error as Error).message)}`, '/');
  }
  const details = validator.articleLineProblems(value, raw);
  if (details.length > 0) {
    const id = (value as { id?: unknown } | null)?.id;
    const shownId = typeof id === 'string' ? id : null;
    const message = describeDetails(details);
    return { line, id: shownId, code: 'invalid_body', message, details: details.slice(0, MAX_DETAILS) };
  }
  const { id, draft, ...input } = value as ArticleInput & { id: string; draft?: boolean };
  // Valid, so a draft line's fields are a draft's.
  return draft ? { line, id, draft, input } : { line, id, input };
}

/**
 * What is wrong with the line, from V8's JSON.parse message, which already says "is not valid
 * JSON" or "in JSON" itself; within one line, a column is what the user looks for.
 */
function describeJsonError(message: string): string {
  const reason = message
    .replace(/^Unexpected end of JSON input$/, 'it ends before the value does')
    .replace(/,? ?(?:\.\.\.)?"[\s\S]*"(?:\.\.\.)? is not valid JSON$/, '')
    .replace(
      / (in|after) JSON at position \d+ \(line \d+ column (\d+)\)$/,
      (_, where: string, column: string) =>
        where === 'in' ? ` at column ${column}` : ` after the value, at column ${column}`,
    )
    .replace(
      / (in|after) JSON at position (\d+)$/,
      (_, where: string, position: string) =>
        `${where === 'in' ? '' : ' after the value,'} at column ${Number(position) + 1}`,
    );
  return reason.charAt(0).toLowerCase() + reason.slice(1);
}

function problem(line: number, id: string | null, message: string, path: string): InvalidLine {
  return { line, id, code: 'invalid_body', message, details: [{ path, message }] };
}
