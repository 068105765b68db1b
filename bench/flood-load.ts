import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import autocannon from 'autocannon';
import { TIMEOUT_SECONDS } from './load.ts';

/**
 * The load generator of the flood run, as its own process: a key holder asking for URLs never
 * asked before (page numbers past the end, real pages in new sizes, unknown slugs, unknown
 * query parameters), and one of the hot URLs every tenth request. `flood-load.ts <spec file>`;
 * prints autocannon's result as JSON.
 */

export interface FloodSpec {
  origin: string;
  connections: number;
  durationSeconds: number;
  /** The delivery list's path, `/api/v1/projects/{id}/content`. */
  base: string;
  headers: Record<string, string>;
  hot: string[];
  /** Pages of 20 the catalogue has. */
  pages: number;
}

/** The `n`th request's path: one of ten kinds in turn. */
export function floodPath(spec: FloodSpec, n: number): string {
  const random = (below: number) => Math.floor(Math.random() * below);
  const noise = () => randomBytes(8).toString('hex');
  switch (n % 10) {
    case 0:
      return spec.hot[Math.floor(n / 10) % spec.hot.length]!;
    case 1:
    case 2:
    case 3:
      return `${spec.base}?page=${spec.pages + 1 + random(1e9)}`;
    case 4:
    case 5:
      return `${spec.base}?page=${1 + random(spec.pages)}&limit=${1 + random(100)}`;
    case 6:
    case 7:
      return `${spec.base}/by-slug/${noise()}`;
    default:
      return `${spec.base}?${noise()}=${noise()}`;
  }
}

if (import.meta.main) {
  const spec = JSON.parse(fs.readFileSync(process.argv[2]!, 'utf8')) as FloodSpec;
  let next = 0;
  const result = await autocannon({
    url: spec.origin,
    connections: spec.connections,
    duration: spec.durationSeconds,
    timeout: TIMEOUT_SECONDS,
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          path: floodPath(spec, next++),
          headers: { ...request.headers, ...spec.headers },
        }),
      },
    ],
  });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
