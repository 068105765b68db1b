import type { Delivery } from '@folio/schema';
import type { ServiceDeps } from '../services/deps.ts';
import { listDeliveries } from '../services/webhooks.ts';
import * as store from '../store/webhook-deliveries.ts';

/** A delivery as the log shows it: the management API's view, and the body that was sent. */
export interface LoggedDelivery extends Delivery {
  /** The JSON body posted to the receiver; null when the delivery went between the two reads. */
  payload: string | null;
}

/**
 * The newest `limit` deliveries of a project with their attempts and payloads. The management
 * API's Delivery has no payload, so the events' stored bodies are read beside it, by id.
 */
export async function listLoggedDeliveries(
  deps: ServiceDeps,
  projectId: string,
  limit: number,
): Promise<LoggedDelivery[]> {
  const { data } = await listDeliveries(deps, projectId, { page: 1, limit });
  const rows = await store.listDeliveries(deps.db, projectId, { limit, offset: 0 });
  const payloads = new Map(rows.map((row) => [row.id, row.payload]));
  return data.map((delivery) => ({ ...delivery, payload: payloads.get(delivery.id) ?? null }));
}
