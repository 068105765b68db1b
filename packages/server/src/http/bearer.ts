/** The token of an `Authorization: Bearer <token>` header (RFC 6750, section 2.1), or undefined. */
export function readBearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1];
}
