import type { ScrapedGauges } from '../http/metrics.ts';
import {
  countPendingDeliveries,
  countPublishedArticles,
  findOldestPendingCreatedAt,
} from '../store/counts.ts';
import type { ServiceDeps } from './deps.ts';

/** The figures the metrics read from the database when they are scraped. */
export function serverCounts(deps: Pick<ServiceDeps, 'db' | 'now'>): ScrapedGauges {
  return {
    pendingDeliveries: () => countPendingDeliveries(deps.db),
    oldestPendingSeconds: async () => {
      const createdAt = await findOldestPendingCreatedAt(deps.db);
      return createdAt === undefined ? 0 : Math.max(0, deps.now() - createdAt) / 1000;
    },
    publishedArticles: () => countPublishedArticles(deps.db),
  };
}
