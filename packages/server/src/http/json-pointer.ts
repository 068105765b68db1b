/** One reference token of a JSON Pointer (RFC 6901): `~` and `/` in a key escaped. */
export function pointerToken(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The key a JSON Pointer reference token stands for. */
export function keyOfToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}
