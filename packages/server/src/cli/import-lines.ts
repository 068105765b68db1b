import { isUtf8 } from 'node:buffer';
import type { ArticleInput } from '@folio/schema';
import type { ErrorDetail } from '../errors.ts';
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

/**
 * Checks every line of the file's bytes; valid ones become import items, the others are reported
 * by line number. A byte order mark, as some editors save, is no part of the first line.
 */
export function parseLines(
  bytes: Buffer,
  validator: InputValidator,
  onProgress: (done: number, total: number) => void,
): { items: ImportItem[]; invalid: InvalidLine[] } {
  const lines = splitLines(bytes.subarray(0, 3).equals(UTF8_BOM) ? bytes.subarray(3) : bytes);
  const items: ImportItem[] = [];
  const invalid: InvalidLine[] = [];
  const firstLineOf = new Map<string, number>();
  for (const [index, bytesOfLine] of lines.entries()) {
    onProgress(index + 1, lines.length);
    const line = index + 1;
    // As the API: a larger body answers 413, so no article comes in bigger by the back door.
    if (bytesOfLine.length > JSON_BODY_LIMIT) {
      invalid.push(
        problem(line, null, `is ${bytesOfLine.length} bytes, over the 1 MiB an article may be`, '/'),
      );
      continue;
    }
    // Decoding would put U+FFFD in place of each bad byte and store it as text.
    if (!isUtf8(bytesOfLine)) {
      invalid.push(problem(line, null, 'is not valid UTF-8', '/'));
      continue;
    }
    const raw = bytesOfLine.toString('utf8');
    if (raw.trim() === '') continue;
    const parsed = parseLine(raw, line, validator);
    if ('code' in parsed) {
      invalid.push(parsed);
      continue;
    }
    // Two lines for one article (or two drafts of one) is a mistake in the file; the second
    // would silently win. An article line and a draft line of one id are what export writes.
    const key = parsed.draft ? `draft ${parsed.id}` : parsed.id;
    const first = firstLineOf.get(key);
    if (first === undefined) {
      firstLineOf.set(key, parsed.line);
      items.push(parsed);
    } else {
      const message = parsed.draft
        ? `is a second draft of "${parsed.id}" (the first is on line ${first})`
        : `repeats the id "${parsed.id}" of line ${first}`;
      invalid.push(problem(parsed.line, parsed.id, message, '/id'));
    }
  }
  return { items, invalid };
}

function parseLine(raw: string, line: number, validator: InputValidator): ImportItem | InvalidLine {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return problem(line, null, `is not valid JSON: ${describeJsonError((error as Error).message)}`, '/');
  }
  const details = validator.articleLineProblems(value);
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

/** The file's lines, without their `\n` or `\r\n`; the newline that ends the last starts none. */
function splitLines(bytes: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  for (let end = bytes.indexOf(0x0a); end !== -1; end = bytes.indexOf(0x0a, start)) {
    lines.push(bytes.subarray(start, end > start && bytes[end - 1] === 0x0d ? end - 1 : end));
    start = end + 1;
  }
  if (start < bytes.length) lines.push(bytes.subarray(start));
  return lines;
}

function problem(line: number, id: string | null, message: string, path: string): InvalidLine {
  return { line, id, code: 'invalid_body', message, details: [{ path, message }] };
}
