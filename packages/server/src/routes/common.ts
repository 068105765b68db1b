import { ErrorBodySchema } from '@folio/schema';
import { Type } from '@sinclair/typebox';

/** Error answers every route may give; documented once for the OpenAPI output. */
export const errorResponses = { '4xx': ErrorBodySchema, '5xx': ErrorBodySchema } as const;

export const ProjectParams = Type.Object({ projectId: Type.String({ maxLength: 200 }) });

/** A `204 No Content` answer. */
export const NoContent = Type.Null({ description: 'No content' });
