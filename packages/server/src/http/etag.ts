import { createHash } from 'node:crypto';
import type { Encoding } from './compression.ts';

/*
 * Entity tags and conditional GETs, in one place. RFC 9110:
 * - 8.8.3: a strong tag changes whenever the bytes do, so each encoding of a body has its own
 *   tag, all derived from the identity tag so a revalidation can match any of them;
 * - 13.1.2: `If-None-Match` uses the weak comparison, and `*` matches any current version;
 * - 15.4.5: a 304 repeats the headers a 200 would have sent (ETag, Cache-Control, Vary…) but
 *   those that describe the body it does not send (`BODY_HEADERS`), and no Content-Length
 *   other than the 200's.
 */

/** The strong tag of `bytes` (or of a text that stands for them, such as a streamed body's key). */
export function strongTag(bytes: string | Buffer): string {
  return `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 32)}"`;
}

/** The tags of every encoding of one body, made once so an answer builds no tag string. */
export function encodedTags(identity: string): Readonly<Record<Encoding, string>> {
  const variant = (encoding: Encoding) => `${identity.slice(0, -1)}-${encoding}"`;
  return { identity, br: variant('br'), gzip: variant('gzip') };
}

/**
 * The tag among `tags` that an `If-None-Match` header names, if any. A single exact tag, what
 * browsers, CDNs and the SDK send, is matched without parsing a list.
 */
export function heldTag(
  tags: Readonly<Record<Encoding, string>>,
  header: string | undefined,
): string | undefined {
  if (!header) return undefined;
  // The tag's own string, not the header's: a map it then keys finds it without hashing it anew.
  if (header === tags.identity) return tags.identity;
  if (header === tags.br) return tags.br;
  if (header === tags.gzip) return tags.gzip;
  if (header.trim() === '*') return tags.identity;
  const held = header.split(',').map((candidate) => candidate.trim().replace(/^W\//, ''));
  return [tags.identity, tags.br, tags.gzip].find((tag) => held.includes(tag));
}

/** Whether an `If-None-Match` header names `tag` (a body known in one encoding only). */
export function matchesIfNoneMatch(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  if (header === tag || header.trim() === '*') return true;
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === tag);
}

/** The headers of a 200 that its 304 drops: they describe a body the 304 does not carry. */
export const BODY_HEADERS = ['content-type', 'content-encoding'] as const;
