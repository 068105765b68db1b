import { ADMIN_TOKEN } from './folio-server.ts';
import { type LoadPlan, type LoadResult, runLoad } from './load.ts';

// Just under the server's body limit (1 MiB), so the whole body is parsed and validated.
const BODY_BYTES = 1024 * 1024 - 1024;
// Invalid in different ways, so validation reports a mix of errors, not one repeated.
const INVALID_BLOCKS = [
  '{"type":"paragraph","content":"nope"}',
  '{"type":"heading","level":9,"text":42}',
  '{"type":"image","url":"javascript:alert(1)"}',
  '{"type":"list","items":"none"}',
  '{"type":"no-such-block"}',
  '{"type":"code","code":["x"]}',
  '{"type":"table","headers":"a","rows":[1]}',
];

/** What answering invalid 1 MiB bodies did to the cached reads running meanwhile. */
export interface InvalidBodyReport {
  bodyBytes: number;
  blocks: number;
  /** Bodies sent, one after another, during the reads; their statuses as text. */
  posts: number;
  statuses: string;
  /** Time to answer one invalid body, ms: median and max. */
  answerMs: number;
  answerMaxMs: number;
  /** The cached reads meanwhile, with the server's event-loop delay over the run. */
  reads: LoadResult;
}

/** The invalid body: 10,000 paragraphs whose content is a string, then other invalid kinds. */
export function invalidArticleBody(): { text: string; blocks: number } {
  const blocks: string[] = [];
  let bytes = 100;
  for (let i = 0; bytes < BODY_BYTES; i++) {
    const block = i < 10_000 ? INVALID_BLOCKS[0]! : INVALID_BLOCKS[i % INVALID_BLOCKS.length]!;
    if (bytes + block.length + 1 > BODY_BYTES) break;
    blocks.push(block);
    bytes += block.length + 1;
  }
  const text = `{"slug":"invalid-body","title":"Invalid","published":true,"blocks":[${blocks.join(',')}]}`;
  return { text, blocks: blocks.length };
}

/**
 * Sends the invalid body to `PUT /admin/v1/projects/{id}/articles/{id}` again and again while
 * `plan` (cached reads) loads the server, and reports each answer's time and the server's
 * event-loop delay over the run.
 */
export async function benchInvalidBodies(options: {
  origin: string;
  pid: number;
  projectId: string;
  plan: LoadPlan;
  load: { connections: number; durationSeconds: number; loadCpu?: number };
}): Promise<InvalidBodyReport> {
  const { text, blocks } = invalidArticleBody();
  const url = `${options.origin}/admin/v1/projects/${options.projectId}/articles/invalid-body`;
  const times: number[] = [];
  const statuses = new Map<number, number>();
  let loading = true;
  const post = async () => {
    const started = performance.now();
    const response = await fetch(url, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: text,
    });
    await response.arrayBuffer();
    times.push(performance.now() - started);
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
  };
  const poster = (async () => {
    // Let wrk's connections open first, then one invalid body at a time until the reads end.
    await new Promise((resolve) => setTimeout(resolve, 200));
    while (loading) await post();
  })();
  const reads = await runLoad(options.origin, options.pid, options.plan, { ...options.load, metrics: true });
  loading = false;
  await poster;
  const sorted = [...times].sort((a, b) => a - b);
  return {
    bodyBytes: Buffer.byteLength(text),
    blocks,
    posts: times.length,
    statuses: [...statuses].map(([status, count]) => `${count} × ${status}`).join(', '),
    answerMs: sorted[Math.floor(sorted.length / 2)] ?? Number.NaN,
    answerMaxMs: sorted.at(-1) ?? Number.NaN,
    reads,
  };
}
