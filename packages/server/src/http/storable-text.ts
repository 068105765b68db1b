import type { ErrorDetail } from '../errors.ts';
import { pointerToken } from './json-pointer.ts';

interface Node {
  value: unknown;
  /** The member name or array index under `parent`; undefined at the root. */
  key: string | undefined;
  /** True when `key` is a member name, which must be storable text itself. */
  named: boolean;
  parent: Node | undefined;
  depth: number;
}

/**
 * Deeper than any article, project or jsonLd needs; validation and serialization recurse, so a
 * body nested deeper is refused here, where nothing does.
 */
export const MAX_JSON_DEPTH = 256;

/**
 * The first string, member name or number in a parsed JSON value that cannot be kept as sent,
 * or the first value nested past `MAX_JSON_DEPTH`, as a detail naming its JSON Pointer;
 * undefined when there is none. U+0000: PostgreSQL
 * text cannot hold it. A lone surrogate: UTF-8 cannot encode it, so the drivers would store
 * U+FFFD in its place (and `encodeURIComponent` throws on one). A number past a double's range
 * (`1e400`): `JSON.parse` reads it as Infinity, which JSON has no way to write, so it would be
 * stored and served as null. One pass in document order
 * without recursion, so a deeply nested body costs neither stack nor more than its size; the
 * pointer is only built for the value reported.
 */
export function findUnstorableText(value: unknown): ErrorDetail | undefined {
  const stack: Node[] = [{ value, key: undefined, named: false, parent: undefined, depth: 0 }];
  for (let node = stack.pop(); node; node = stack.pop()) {
    const problem =
      (node.named && textProblem(node.key, 'has a name that ')) ||
      textProblem(node.value) ||
      numberProblem(node.value);
    if (problem) return { path: pointerOf(node), message: problem };
    const current = node.value;
    if (typeof current !== 'object' || current === null) continue;
    if (node.depth >= MAX_JSON_DEPTH) {
      return { path: pointerOf(node), message: `is nested deeper than ${MAX_JSON_DEPTH} levels` };
    }
    const depth = node.depth + 1;
    // Pushed last to first, so the first member or item is looked at first.
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) {
        stack.push({ value: current[i], key: String(i), named: false, parent: node, depth });
      }
    } else {
      const members = Object.entries(current);
      for (let i = members.length - 1; i >= 0; i--) {
        const [key, member] = members[i]!;
        stack.push({ value: member, key, named: true, parent: node, depth });
      }
    }
  }
  return undefined;
}

/**
 * False when the JSON text cannot hold what `findUnstorableText` looks for, so the walk, which
 * costs an object per value parsed (tens of milliseconds for a body of many small values), is
 * skipped; true when it may. One pass over the characters of text `JSON.parse` took: U+0000 and
 * a lone surrogate can only come from a `\u` escape, since valid UTF-8 decodes to neither and
 * JSON has no raw control characters, and nesting needs its brackets outside strings. A
 * surrogate pair written as two escapes (as Python's `json.dumps` writes an emoji) is text. A
 * number can only be infinite with an exponent or more digits than a double's range has.
 */
export function mayHoldUnstorableText(json: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const char = json.charCodeAt(i);
    if (inString) {
      if (char === QUOTE) inString = false;
      else if (char === BACKSLASH) {
        if (json.charCodeAt(i + 1) !== LETTER_U) i++;
        else {
          const unit = escapedUnit(json, i);
          if (unit === 0 || isLowSurrogate(unit)) return true;
          if (isHighSurrogate(unit)) {
            if (!isLowSurrogate(escapedUnit(json, i + 6))) return true;
            i += 6;
          }
          i += 5;
        }
      }
    } else if (char === QUOTE) inString = true;
    else if (char === MINUS || (char >= DIGIT_0 && char <= DIGIT_9)) {
      const end = numberEnd(json, i);
      if (mayBeInfinite(json, i, end)) return true;
      i = end - 1;
    } else if (char === OPEN_BRACE || char === OPEN_BRACKET) {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else if (char === CLOSE_BRACE || char === CLOSE_BRACKET) depth--;
  }
  return false;
}

const QUOTE = 0x22;
const MINUS = 0x2d;
const PLUS = 0x2b;
const POINT = 0x2e;
const LETTER_E = 0x65;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
// Digits a number without an exponent needs to pass Number.MAX_VALUE (about 1.8e308).
const DIGITS_PAST_DOUBLE = 309;
const BACKSLASH = 0x5c;
const LETTER_U = 0x75;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** The code unit of the `\uXXXX` escape at `at`, or -1 when there is none there. */
function escapedUnit(json: string, at: number): number {
  if (json.charCodeAt(at) !== BACKSLASH || json.charCodeAt(at + 1) !== LETTER_U) return -1;
  const hex = json.slice(at + 2, at + 6);
  return /^[0-9a-fA-F]{4}$/.test(hex) ? Number.parseInt(hex, 16) : -1;
}

/** Where the number token starting at `start` ends: JSON.parse took the text, so it is one. */
function numberEnd(json: string, start: number): number {
  let end = start + 1;
  while (end < json.length && isNumberChar(json.charCodeAt(end))) end++;
  return end;
}

// Digits, sign, point and exponent: the characters of a JSON number.
const isNumberChar = (char: number) =>
  (char >= DIGIT_0 && char <= DIGIT_9) ||
  char === MINUS ||
  char === PLUS ||
  char === POINT ||
  (char | 0x20) === LETTER_E;

function mayBeInfinite(json: string, start: number, end: number): boolean {
  if (end - start < DIGITS_PAST_DOUBLE && !hasExponent(json, start, end)) return false;
  return !Number.isFinite(Number(json.slice(start, end)));
}

function hasExponent(json: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if ((json.charCodeAt(i) | 0x20) === LETTER_E) return true;
  return false;
}

const isHighSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLowSurrogate = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

function textProblem(value: unknown, subject = ''): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (value.includes('\u0000')) return `${subject}contains a NUL character (\\u0000), which cannot be stored`;
  if (!value.isWellFormed()) {
    return `${subject}contains a lone surrogate, which is not Unicode text and cannot be stored`;
  }
  return undefined;
}

function numberProblem(value: unknown): string | undefined {
  if (typeof value !== 'number' || Number.isFinite(value)) return undefined;
  return 'is a number too large to be stored';
}

function pointerOf(node: Node): string {
  const keys: string[] = [];
  for (let at: Node | undefined = node; at?.key !== undefined; at = at.parent) {
    keys.push(pointerToken(at.key));
  }
  return keys.length === 0 ? '/' : `/${keys.reverse().join('/')}`;
}
