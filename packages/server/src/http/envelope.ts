import type { Pagination } from '@folio/schema';
import type { AppError } from '../errors.ts';
import type { JsonText } from '../services/json-runs.ts';

/**
 * The contract's envelope: `{ success: true, data, pagination? }` or
 * `{ success: false, error: { code, message, details? } }`. Delivery answers are assembled as
 * JSON text from stored served JSON, never parsed and serialized again, so the success side is
 * written here as text around data that is already serialized.
 */

/** What a streamed success body starts with, before its data's first byte. */
export const SUCCESS_OPEN = '{"success":true,"data":';
/** What a streamed success body ends with, after its data's last byte. */
export const SUCCESS_CLOSE = '}';

/** A success body around `data`, JSON text already; a page of a list also carries its pagination. */
export function successJson(data: string, pagination?: Pagination): string {
  if (pagination === undefined) return `${SUCCESS_OPEN}${data}${SUCCESS_CLOSE}`;
  return `${SUCCESS_OPEN}${data},"pagination":${JSON.stringify(pagination)}${SUCCESS_CLOSE}`;
}

/** `successJson` around data that may come in chunks (a list, `json-runs.ts`): chunks too. */
export function successText(data: JsonText, pagination?: Pagination): JsonText {
  if (typeof data === 'string') return successJson(data, pagination);
  return successChunks(data, pagination);
}

async function* successChunks(data: AsyncIterable<string>, pagination?: Pagination): AsyncGenerator<string> {
  yield SUCCESS_OPEN;
  yield* data;
  yield pagination === undefined
    ? SUCCESS_CLOSE
    : `,"pagination":${JSON.stringify(pagination)}${SUCCESS_CLOSE}`;
}

/** An error body, as an object for Fastify's serializer or `JSON.stringify`. */
export function errorBody(error: AppError) {
  return {
    success: false,
    error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) },
  };
}
