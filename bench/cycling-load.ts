import fs from 'node:fs';
import autocannon from 'autocannon';
import { TIMEOUT_SECONDS } from './load.ts';

/**
 * The load generator for the "cold" cases, run as its own process: autocannon (the same engine
 * as its CLI) where each request takes the next path of a list, so consecutive requests ask
 * for different responses. `cycling-load.ts <spec file>`; prints autocannon's result as JSON.
 */

/** What one cycling run loads. */
export interface CyclingSpec {
  origin: string;
  connections: number;
  durationSeconds: number;
  requests: Array<{ path: string; headers: Record<string, string> }>;
}

if (import.meta.main) {
  const spec = JSON.parse(fs.readFileSync(process.argv[2]!, 'utf8')) as CyclingSpec;
  let next = 0;
  const result = await autocannon({
    url: spec.origin,
    connections: spec.connections,
    duration: spec.durationSeconds,
    timeout: TIMEOUT_SECONDS,
    requests: [
      {
        setupRequest: (request) => {
          const { path, headers } = spec.requests[next++ % spec.requests.length]!;
          return { ...request, path, headers: { ...request.headers, ...headers } };
        },
      },
    ],
  });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
