import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { stop } from '../packages/server/src/test/server-process.ts';
import { catalogueArticle } from './catalogue.ts';
import type { CacheFlood, EntryCost } from './entry-cost.ts';
import { adminApi, startFolio } from './folio-server.ts';
import { readRssKb } from './load.ts';
import { seedCatalogue } from './seed.ts';
import { prepareStore } from './stores.ts';
import { COUNT_STATUSES, luaString, wrkScript } from './wrk.ts';

const run = promisify(execFile);
const ENTRY_COST = fileURLToPath(new URL('./entry-cost.ts', import.meta.url));
const NODE_FLAGS = ['--conditions=folio-source', '--disable-warning=ExperimentalWarning'];

export interface FloodReport {
  database: string;
  articles: number;
  seconds: number;
  connections: number;
  requests: number;
  requestsPerSecond: number;
  /** Answers by status class: 2xx, 4xx, 5xx; errors are connection errors and timeouts. */
  answers: Record<'2xx' | '4xx' | '5xx' | 'errors', number>;
  rssMb: { before: number; peak: number; after: number };
  cost: EntryCost;
  simulated: CacheFlood;
}

/**
 * The flood run: a Folio server child process with the default response cache, a key holder
 * asking it for distinct URLs for `durationSeconds` (see `flood-load.ts`), and the server's RSS
 * before, at its peak and after. Then, in a child process of its own, what a cache entry costs
 * and a flood of a million requests through a cache of the default size (`entry-cost.ts`).
 */
export async function benchFlood(options: {
  databaseUrl: string | undefined;
  articles: number;
  durationSeconds: number;
  connections: number;
}): Promise<FloodReport> {
  const store = await prepareStore(options.databaseUrl);
  try {
    const seeded = await seedCatalogue({
      databaseUrl: store.databaseUrl,
      dataDir: store.dataDir,
      articles: options.articles,
      websiteUrl: 'https://www.example.com',
    });
    const folio = await startFolio(store, {});
    try {
      const key = await adminApi(folio.origin)<{ key: string }>(
        'POST',
        `/projects/${seeded.projectId}/keys`,
        {
          name: 'flood',
        },
      );
      const headers = { authorization: `Bearer ${key.key}` };
      const base = `/api/v1/projects/${seeded.projectId}/content`;
      const hot = [base, `${base}/by-slug/${catalogueArticle(0).input.slug}`];
      for (const url of [...hot, ...hot]) await fetch(`${folio.origin}${url}`, { headers });
      const pid = folio.server.child.pid!;
      const before = readRssKb(pid);
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, readRssKb(pid));
      }, 50);
      const script = floodScript({ base, headers, hot, pages: Math.ceil(options.articles / 20) });
      let result: Awaited<ReturnType<typeof wrkScript>>;
      try {
        result = await wrkScript(
          {
            origin: folio.origin,
            connections: options.connections,
            durationSeconds: options.durationSeconds,
          },
          script,
        );
      } finally {
        clearInterval(sampler);
      }
      const statuses = result.statuses!;
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const after = readRssKb(pid);
      const measured = await run(process.execPath, ['--expose-gc', ...NODE_FLAGS, ENTRY_COST]);
      const { cost, simulated } = JSON.parse(measured.stdout) as { cost: EntryCost; simulated: CacheFlood };
      return {
        database: store.name,
        articles: options.articles,
        seconds: options.durationSeconds,
        connections: options.connections,
        requests: result.requests,
        requestsPerSecond: result.requests / result.durationSeconds,
        answers: {
          '2xx': statuses['2xx'] + statuses['3xx'],
          '4xx': statuses['4xx'],
          '5xx': statuses['5xx'],
          errors: result.errors,
        },
        rssMb: { before: before / 1024, peak: peak / 1024, after: after / 1024 },
        cost,
        simulated,
      };
    } finally {
      await stop(folio.server);
    }
  } finally {
    await store.drop();
  }
}

/**
 * wrk's Lua for a key holder asking for URLs never asked before, one of ten kinds in turn: page
 * numbers past the end, real pages in new sizes, unknown slugs, unknown query parameters, and
 * one of the hot URLs every tenth request.
 */
function floodScript(spec: {
  base: string;
  headers: Record<string, string>;
  hot: string[];
  pages: number;
}): string {
  const headerFields = Object.entries(spec.headers)
    .map(([name, value]) => `[${luaString(name)}]=${luaString(value)}`)
    .join(',');
  return [
    COUNT_STATUSES,
    `local base = ${luaString(spec.base)}`,
    `local hot = {${spec.hot.map(luaString).join(',')}}`,
    `local pages = ${spec.pages}`,
    `local headers = {${headerFields}}`,
    'local n = 0',
    'local function noise() return string.format("%08x%08x", math.random(0, 2147483647), math.random(0, 2147483647)) end',
    'function init(args) math.randomseed(os.time()) end',
    'function request()',
    '  local kind = n % 10',
    '  local path',
    '  if kind == 0 then path = hot[math.floor(n / 10) % #hot + 1]',
    '  elseif kind <= 3 then path = base .. "?page=" .. (pages + math.random(1, 1000000000))',
    '  elseif kind <= 5 then path = base .. "?page=" .. math.random(1, pages) .. "&limit=" .. math.random(1, 100)',
    '  elseif kind <= 7 then path = base .. "/by-slug/" .. noise()',
    '  else path = base .. "?" .. noise() .. "=" .. noise() end',
    '  n = n + 1',
    '  return wrk.format("GET", path, headers)',
    'end',
  ].join('\n');
}

/** The report as the lines of BENCHMARKS.md's section. */
export function floodText(reports: FloodReport[]): string {
  const mb = (value: number) => `${value.toFixed(0)} MB`;
  const rows = reports.map((r) =>
    [
      r.database,
      `${r.seconds} s, ${r.connections} connections`,
      `${r.requests.toLocaleString('en')} (${r.requestsPerSecond.toFixed(0)}/s)`,
      `${r.answers['2xx']} / ${r.answers['4xx']} / ${r.answers['5xx']} / ${r.answers.errors}`,
      mb(r.rssMb.before),
      mb(r.rssMb.peak),
      mb(r.rssMb.after),
    ].join(' | '),
  );
  const { cost, simulated } = reports[0]!;
  return [
    '| database | flood | requests | 2xx / 4xx / 5xx / errors | RSS before | RSS peak | RSS after |',
    '|---|---|---|---|---|---|---|',
    ...rows.map((row) => `| ${row} |`),
    '',
    `Memory per cache entry beyond its body and key bytes (${cost.entries.toLocaleString('en')} entries of an empty`,
    `page): ${cost.entry.heapAndExternal} bytes of heap and external memory, ${cost.entry.rss} bytes of RSS; per compressed`,
    `variant: ${cost.variant.heapAndExternal} and ${cost.variant.rss} bytes. A flood of ${simulated.requests.toLocaleString('en')} requests`,
    `through a cache of the default size (distinct pages past the end, one hot page every tenth request) left`,
    `${simulated.entries.toLocaleString('en')} entries, ${(simulated.bytes / 2 ** 20).toFixed(1)} MB accounted; the hot page was answered from the cache`,
    `${(simulated.hotHitRate * 100).toFixed(3)}% of the time.`,
  ].join('\n');
}
