import type { ScrapedGauges } from '../http/metrics.ts';
import { countPendingDeliveries, countPublishedArticles } from '../store/counts.ts';
import type { ServiceDeps } from './deps.ts';

/** The figures the metrics read from the database when they are scraped. */
export function serverCounts(deps: Pick<ServiceDeps, 'db'>): ScrapedGauges {
  return {
    pendingDeliveries: () => countPendingDeliveries(deps.db),
    publishedArticles: () => countPublishedArticles(deps.db),
  };
}
