import { FolioError } from './folio-error.ts';
import type { Answer } from './request.ts';

/** Folio's root address as the client was given it: the asked URL up to its `/api/v1/`. */
function baseUrlOf(url: string): string {
  const at = url.indexOf('/api/v1/');
  return at === -1 ? url : url.slice(0, at);
}

const withoutQuery = (url: string) => url.replace(/[?#].*$/, '');

/**
 * What most likely put another body where Folio's JSON belongs. A `baseUrl` with the path of
 * a dashboard page gets that page (the sign-in page, after a redirect) for every API address.
 */
function likelyCause(answer: Answer): string {
  const base = JSON.stringify(baseUrlOf(answer.url));
  if (answer.body === undefined && /html/i.test(answer.contentType ?? '')) {
    return `A web page, not the API: is baseUrl ${base} Folio's root address? Give the address /api/v1 lives under, without the path of a dashboard page.`;
  }
  if (answer.body === undefined) return `Not JSON: a proxy's answer, or is baseUrl ${base} another server?`;
  return `JSON of another shape: is baseUrl ${base} Folio's root address, or does another API answer there?`;
}

/**
 * The `invalid_response` FolioError for a success status whose body is not what the API
 * answers: it names the address asked, what came back, and the likely cause.
 * @example
 * throw unexpectedBody(answer); // 'Folio answered GET https://…/content with an unexpected body: …'
 */
export function unexpectedBody(answer: Answer): FolioError {
  const redirect = answer.redirectedTo ? `, redirected to ${withoutQuery(answer.redirectedTo)}` : '';
  const type = answer.contentType ?? 'no content type';
  const start = answer.start.replace(/\s+/g, ' ').trim();
  return new FolioError({
    status: answer.status,
    code: 'invalid_response',
    message:
      `Folio answered GET ${answer.url} with an unexpected body (${answer.status}${redirect}; ` +
      `${type}; ${start ? `starting ${JSON.stringify(start)}` : 'empty'}). ${likelyCause(answer)}`,
  });
}
