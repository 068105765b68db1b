import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';

/**
 * Asserts an error answer in the contract's shape: the status, JSON, and exactly
 * `{ success: false, error: { code, message, details? } }`. Returns the error object.
 */
export function assertError(
  response: LightMyRequestResponse,
  status: number,
  code: string,
  what = '',
): { code: string; message: string; details?: { path: string; message: string }[] } {
  const label = `${what} → ${response.statusCode} ${response.body.slice(0, 300)}`;
  assert.equal(response.statusCode, status, label);
  assert.match(String(response.headers['content-type']), /^application\/json/, label);
  const body = response.json();
  assert.deepEqual(Object.keys(body).sort(), ['error', 'success'], label);
  assert.equal(body.success, false, label);
  const keys = Object.keys(body.error).sort();
  assert.ok(
    keys.join() === 'code,message' || keys.join() === 'code,details,message',
    `${label}: error keys ${keys.join()}`,
  );
  assert.equal(body.error.code, code, label);
  assert.equal(typeof body.error.message, 'string', label);
  assert.ok(body.error.message.length > 0, label);
  if (body.error.details !== undefined) {
    assert.ok(Array.isArray(body.error.details), label);
    for (const detail of body.error.details) {
      assert.deepEqual(Object.keys(detail).sort(), ['message', 'path'], label);
      assert.equal(typeof detail.path, 'string', label);
      assert.equal(typeof detail.message, 'string', label);
    }
  }
  return body.error;
}

/** The JSON Pointers named by an error answer's `details`. */
export function detailPaths(response: LightMyRequestResponse): string[] {
  const details = response.json().error?.details as { path: string }[] | undefined;
  return (details ?? []).map((detail) => detail.path);
}

/** Asserts a 400 `invalid_body` whose details name `path`. */
export function assertInvalidBody(response: LightMyRequestResponse, path: string, what = ''): void {
  assertError(response, 400, 'invalid_body', what || path);
  assert.ok(
    detailPaths(response).includes(path),
    `${what}: details ${JSON.stringify(detailPaths(response))} do not name ${path}`,
  );
}

export interface RowCounts {
  projects: number;
  content_keys: number;
  articles: number;
  events: number;
}

/** How many rows each table holds, to prove a refused request wrote nothing. */
export async function countRows(db: Kysely<Database>): Promise<RowCounts> {
  const count = async (table: keyof RowCounts) =>
    Number((await db.selectFrom(table).select(db.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  return {
    projects: await count('projects'),
    content_keys: await count('content_keys'),
    articles: await count('articles'),
    events: await count('events'),
  };
}

export interface StoredEvent {
  id: string;
  project_id: string;
  type: string;
  payload: {
    event: string;
    projectId: string;
    timestamp: string;
    data: Record<string, unknown>;
  };
  created_at: number;
}

/** The events stored so far, oldest first, with their payload parsed. */
export async function listEvents(db: Kysely<Database>): Promise<StoredEvent[]> {
  const rows = await db.selectFrom('events').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.map((row) => ({ ...row, payload: JSON.parse(row.payload) }));
}
