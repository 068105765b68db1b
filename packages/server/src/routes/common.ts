import { ErrorBodySchema, PageQuerySchema } from '@folio/schema';
import { Type } from '@sinclair/typebox';
import { MAX_PAGE_SIZE } from '../services/pagination.ts';

/** Error answers every route may give; documented once for the OpenAPI output. */
export const errorResponses = { '4xx': ErrorBodySchema, '5xx': ErrorBodySchema } as const;

export const ProjectParams = Type.Object({ projectId: Type.String({ maxLength: 200 }) });

/** A `204 No Content` answer. */
export const NoContent = Type.Null({ description: 'No content' });

/**
 * `page` and `limit` of a management list. The contract's lists answer "all", so a page holds
 * the maximum (100) unless asked otherwise; the delivery list's default (20) would be filled in
 * by the validator.
 */
export const AdminListQuery = Type.Object({
  page: PageQuerySchema.properties.page,
  limit: Type.Optional(Type.Integer({ minimum: 1, default: MAX_PAGE_SIZE, description: 'Capped to 100' })),
});
