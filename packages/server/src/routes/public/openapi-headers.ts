import type { FastifySchema } from 'fastify';

/**
 * The header fields and the 304 that hooks add to every route's answers (ETags in
 * `http/caching.ts`, `WWW-Authenticate` and `Retry-After` in `http/error-handler.ts`, the
 * RateLimit fields in `http/request-accounting.ts`), added to each route's schema on its way
 * into the OpenAPI document. Routes do not declare them one by one, as they do not set them.
 */

type Responses = Record<string, Record<string, unknown>>;
type Header = { type: string; description: string };

const ETAG: Header = {
  type: 'string',
  description: 'Strong entity tag of the body; send it in If-None-Match to get 304 while it is unchanged',
};
// A request header: documented only, as Fastify validates none (see `http/etag.ts` for matching).
const IF_NONE_MATCH = {
  type: 'object',
  properties: {
    'if-none-match': {
      type: 'string',
      description: 'An ETag this GET answered before: 304 while it is current',
    },
  },
};
const WWW_AUTHENTICATE: Header = { type: 'string', description: 'On 401: `Bearer`' };
const RETRY_AFTER: Header = {
  type: 'string',
  description: 'On 429 and 503: whole seconds to wait before retrying',
};
// draft-ietf-httpapi-ratelimit-headers, on every answer counted against a credential's budget.
const RATE_LIMIT = {
  'RateLimit-Policy': {
    type: 'string',
    description: 'When FOLIO_RATE_LIMIT is set: the budget, e.g. `"default";q=600;w=10`',
  },
  RateLimit: {
    type: 'string',
    description: 'When FOLIO_RATE_LIMIT is set: what is left of it, e.g. `"default";r=599;t=10`',
  },
} satisfies Record<string, Header>;

/** Whether requests to `url` are counted against a content key's or the admin token's budget. */
const countedAgainstBudget = (url: string) => /^\/(api|admin)\//.test(url);

/** `schema` with the answers and header fields every route of its kind has. */
export function withSharedHeaders(
  schema: FastifySchema,
  url: string,
  method: string | string[],
): FastifySchema {
  const responses = { ...(schema.response as Responses | undefined) };
  const isGet = ([] as string[]).concat(method).includes('GET');
  const authenticated = Array.isArray(schema.security) && schema.security.length > 0;
  const budget = countedAgainstBudget(url) ? RATE_LIMIT : {};
  const add = (status: string, headers: Record<string, Header>) => {
    const all = { ...budget, ...headers };
    if (responses[status] && Object.keys(all).length > 0)
      responses[status] = { ...responses[status], headers: all };
  };
  for (const status of Object.keys(responses).filter((key) => /^2/.test(key))) {
    add(status, status === '200' && isGet ? { ETag: ETAG } : {});
  }
  add('4xx', authenticated ? { 'WWW-Authenticate': WWW_AUTHENTICATE, 'Retry-After': RETRY_AFTER } : {});
  add('5xx', { 'Retry-After': RETRY_AFTER });
  if (!isGet || !responses['200']) return { ...schema, response: responses };
  responses['304'] = {
    type: 'null',
    description: 'Not Modified: If-None-Match named the current ETag; no body',
    headers: { ...budget, ETag: ETAG },
  };
  return { ...schema, headers: IF_NONE_MATCH, response: responses };
}
