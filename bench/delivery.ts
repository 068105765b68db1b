import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import {
  freePort,
  SERVER_NODE_FLAGS,
  type ServerProcess,
  stop,
} from '../packages/server/src/test/server-process.ts';
import type { CapturedResponse, Priming } from './bare-server.ts';
import { catalogueArticle } from './catalogue.ts';
import { adminApi, startFolio } from './folio-server.ts';
import { benchInvalidBodies, type InvalidBodyReport } from './invalid-body.ts';
import {
  chooseCpus,
  type LoadPlan,
  type LoadResult,
  pinToCpu,
  readRssKb,
  runLoad,
  timeCpus,
} from './load.ts';
import { seedCatalogue } from './seed.ts';
import { prepareStore } from './stores.ts';
import { schedulerAtIdle, timeInitialSync } from './sync.ts';

const BARE_SERVER = fileURLToPath(new URL('./bare-server.ts', import.meta.url));
const CONFIG_SOURCE = fileURLToPath(new URL('../packages/server/src/config.ts', import.meta.url));
// A response-cache size variable, if the server has one: the cold runs set it to 0.
const CACHE_VARIABLE = 'FOLIO_RESPONSE_CACHE_MB';
const PAGE_SIZE = 20;
// Distinct responses a cold run cycles through, per list case and for by-slug.
const COLD_PAGES = 50;
const COLD_SLUGS = 2_000;
// A sitemap of 100,000 articles is megabytes: 32 of them at once would only measure queueing.
const SITEMAP_CONNECTIONS = 4;
// A per-credential budget the load never spends: what counting every cached answer costs.
export const UNSPENT_RATE_LIMIT = '100000000/1s';

export interface DeliveryOptions {
  databaseUrl: string | undefined;
  articles: number;
  runs: number;
  connections: number;
  durationSeconds: number;
  /** Only the rows ("list page 1, cached", …) whose name contains one of these. */
  only?: string[];
  /** Servers on CPU 0, the load generator on CPU 1 (see `pinToCpu`). */
  pin?: boolean;
  /**
   * Folio and the bare server loaded at the same time, each by its own wrk, rather than one after
   * the other: they then share one CPU at one speed (BENCHMARKS.md, "Delivery").
   */
  sideBySide?: boolean;
}

/** One case's medians over the runs, for Folio and for the bare server. */
export interface DeliveryRow {
  name: string;
  folio: LoadResult;
  bare: LoadResult;
}

export interface DeliveryReport {
  database: string;
  articles: number;
  deepPage: number;
  seedMs: number;
  /** Bytes of page 1 (20 articles) and of one article by slug, as served. */
  listPageBytes: number;
  articleBytes: number;
  sitemap: { bytes: number; ttfbMs: number; totalMs: number; rssMb: number };
  coldMethod: string;
  rows: DeliveryRow[];
  /** Invalid 1 MiB bodies sent while cached by-slug reads run; undefined when `only` left it out. */
  invalidBody: InvalidBodyReport | undefined;
  /** A first build from the changes feed against paging the list, on the server without a cache. */
  initialSync: Awaited<ReturnType<typeof timeInitialSync>> | undefined;
  /** PostgreSQL only: what the publishing scheduler asks of the database while nothing is due. */
  schedulerIdle: Awaited<ReturnType<typeof schedulerAtIdle>> | undefined;
  /** Runs whose answers were not all the expected status, as text; empty when all were. */
  problems: string[];
  /** Pinned runs: the CPUs of the servers and of wrk, and one loop's time on each CPU at the start. */
  cpus: { server: number; load: number; speeds: number[] | undefined } | undefined;
  /**
   * Side by side only: the bare server against a second bare server, by-slug cached, the same
   * way as each row (medians of the runs): how far from 1 the method itself puts two equals.
   */
  control: DeliveryRow | undefined;
  /**
   * Side by side only: a bare server that first did a server's other I/O (`priming`). `share`
   * is it against the clean bare server, by-slug cached: what the process costs, whatever
   * answers. `rows` are Folio's fast rows loaded against it instead of the clean bare server.
   */
  primed: { priming: Priming; share: DeliveryRow; rows: DeliveryRow[] } | undefined;
}

// What the primed bare server does first: about what a server has done before it is loaded
// (BENCHMARKS.md, How the delivery path works, "Why the process matters").
const PRIMING = { compressions: 40, postgresQueries: 20 };
// Folio's rows measured against the primed bare server too: those the fast path answers.
const PRIMED_ROWS = ['by-slug, cached', '304 list page 1, cached'];

interface DeliveryCase {
  name: string;
  cached: LoadPlan;
  cold: LoadPlan;
  /** Fewer connections than the others, for an answer so large that many would time out. */
  connections?: number;
  /** Also a cached row on a server with `FOLIO_RATE_LIMIT` set to a budget never spent. */
  rateLimited?: boolean;
}

/**
 * The delivery benchmark: seeds a catalogue through the server's services, starts Folio and a
 * bare `node:http` server answering the bytes Folio answered, and loads each case on both.
 */
export async function benchDelivery(options: DeliveryOptions): Promise<DeliveryReport> {
  const store = await prepareStore(options.databaseUrl);
  const children: Array<ServerProcess | ChildProcess> = [];
  try {
    const log = (line: string) => process.stderr.write(`delivery (${store.name}): ${line}\n`);
    log(`seeding ${options.articles} articles`);
    const seeded = await seedCatalogue({
      databaseUrl: store.databaseUrl,
      dataDir: store.dataDir,
      articles: options.articles,
      websiteUrl: 'https://www.example.com',
    });
    log(`seeded in ${(seeded.ms / 1000).toFixed(1)} s`);
    const folio = await startFolio(store, {});
    children.push(folio.server);
    const key = await adminApi(folio.origin)<{ key: string }>('POST', `/projects/${seeded.projectId}/keys`, {
      name: 'bench',
    });
    const auth = { authorization: `Bearer ${key.key}` };
    const hasCacheVariable = fs.readFileSync(CONFIG_SOURCE, 'utf8').includes(CACHE_VARIABLE);
    const cold = hasCacheVariable ? await startFolio(store, { [CACHE_VARIABLE]: '0' }) : folio;
    if (cold !== folio) children.push(cold.server);
    const limited = await startFolio(store, { FOLIO_RATE_LIMIT: UNSPENT_RATE_LIMIT });
    children.push(limited.server);

    const pages = Math.ceil(options.articles / PAGE_SIZE);
    const deepPage = pages >= 5_000 ? 5_000 : Math.max(1, Math.round(pages * 0.8));
    const base = `/api/v1/projects/${seeded.projectId}/content`;
    const listPath = (page: number) => `${base}?page=${page}&limit=${PAGE_SIZE}`;
    const slugPath = (index: number) => `${base}/by-slug/${catalogueArticle(index).input.slug}`;
    const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);
    const coldShallow = range(1, Math.min(COLD_PAGES, pages)).map(listPath);
    const coldDeep = range(Math.max(1, deepPage - COLD_PAGES + 1), Math.min(COLD_PAGES, deepPage)).map(
      listPath,
    );
    const slugCount = Math.min(COLD_SLUGS, options.articles);
    const coldSlugs = range(0, slugCount).map((i) =>
      slugPath(Math.floor((i * options.articles) / slugCount)),
    );
    const sitemapPath = `${base}/sitemap`;
    // A replica's next build when nothing changed: the cursor a complete first sync ends with.
    const changesPath = `${base}/changes?since=${await lastCursor(folio.origin, base, auth)}`;

    log('capturing the bytes Folio answers');
    const captured = await capture(folio.origin, auth, [
      ...new Set([...coldShallow, ...coldDeep, listPath(deepPage), ...coldSlugs, sitemapPath, changesPath]),
    ]);
    const etag = (p: string) => captured.get(p)!.headers.etag!;
    const plan = (paths: string[], status: 200 | 304 = 200): LoadPlan => ({
      status,
      requests: paths.map((p) => ({
        path: p,
        headers: status === 304 ? { ...auth, 'if-none-match': etag(p) } : auth,
      })),
    });
    const cases: DeliveryCase[] = [
      { name: 'list page 1', cached: plan([listPath(1)]), cold: plan(coldShallow) },
      { name: `list page ${deepPage}`, cached: plan([listPath(deepPage)]), cold: plan(coldDeep) },
      {
        name: 'by-slug',
        cached: plan([slugPath(Math.floor(options.articles / 2))]),
        cold: plan(coldSlugs),
        rateLimited: true,
      },
      {
        name: `sitemap (${SITEMAP_CONNECTIONS} connections)`,
        cached: plan([sitemapPath]),
        cold: plan([sitemapPath]),
        connections: SITEMAP_CONNECTIONS,
      },
      // The cold server builds the same answer again each time: its cursor is not new.
      { name: 'changes, nothing new', cached: plan([changesPath]), cold: plan([changesPath]) },
      {
        name: '304 list page 1',
        cached: plan([listPath(1)], 304),
        cold: plan(coldShallow, 304),
        rateLimited: true,
      },
    ];
    const bare = await startBare([...captured.values()], store.dataDir);
    children.push(bare.child);
    const twin = options.sideBySide ? await startBare([...captured.values()], store.dataDir) : undefined;
    if (twin) children.push(twin.child);
    const priming: Priming = {
      compressions: PRIMING.compressions,
      ...(store.databaseUrl
        ? { postgres: { databaseUrl: store.databaseUrl, queries: PRIMING.postgresQueries } }
        : {}),
    };
    const primedBare = options.sideBySide
      ? await startBare([...captured.values()], store.dataDir, priming)
      : undefined;
    if (primedBare) children.push(primedBare.child);
    const cpuSpeeds = options.pin ? timeCpus() : undefined;
    const cpus = options.pin ? chooseCpus(cpuSpeeds) : undefined;
    if (cpus) {
      for (const target of new Set([folio, cold, limited])) pinToCpu(target.server.child.pid!, cpus.server);
      pinToCpu(bare.child.pid!, cpus.server);
      if (twin) pinToCpu(twin.child.pid!, cpus.server);
      if (primedBare) pinToCpu(primedBare.child.pid!, cpus.server);
      log(
        `servers on CPU ${cpus.server}, wrk on CPU ${cpus.load} (one loop: ${cpuSpeeds?.map((ms) => `${ms.toFixed(0)} ms`).join(', ') ?? 'not timed'})`,
      );
    }
    const loadCpu = cpus?.load;
    const servers = new Set([folio, cold, limited]).size;
    const schedulerIdle = store.databaseUrl ? await schedulerAtIdle(store.databaseUrl, servers) : undefined;
    if (schedulerIdle)
      log(
        `scheduler at idle: ${schedulerIdle.pollsPerSecond.toFixed(2)} polls/s per server, ${schedulerIdle.seqScansPerSecond.toFixed(2)} seq scans/s of articles`,
      );
    const sitemap = await timeSitemap(cold, sitemapPath, auth);
    const initialSync =
      options.only && !options.only.some((part) => 'initial sync'.includes(part))
        ? undefined
        : await timeInitialSync(cold.origin, base, auth);
    if (initialSync)
      log(
        `initial sync ${initialSync.syncMs.toFixed(0)} ms (${initialSync.syncRequests} requests), list paging ${initialSync.listMs.toFixed(0)} ms (${initialSync.listRequests})`,
      );
    log(
      `sitemap: ${sitemap.bytes} bytes, first byte ${sitemap.ttfbMs.toFixed(0)} ms, total ${sitemap.totalMs.toFixed(0)} ms`,
    );

    // One untimed run per server first, so JIT warm-up and first-touch costs are not measured.
    const warmUp = { connections: options.connections, durationSeconds: 2, loadCpu };
    for (const target of new Set([folio, cold, limited]))
      await runLoad(target.origin, target.server.child.pid!, cases[0]!.cold, warmUp);
    await runLoad(bare.origin, bare.child.pid!, cases[0]!.cold, warmUp);
    if (twin) await runLoad(twin.origin, twin.child.pid!, cases[0]!.cold, warmUp);
    if (primedBare) await runLoad(primedBare.origin, primedBare.child.pid!, cases[0]!.cold, warmUp);
    // The rate-limited server's cached answers, made by one request each before its rows.
    for (const benchCase of cases.filter((c) => c.rateLimited))
      await runLoad(limited.origin, limited.server.child.pid!, benchCase.cached, {
        ...warmUp,
        durationSeconds: 1,
      });

    const rows: DeliveryRow[] = [];
    const problems: string[] = [];
    // Every measurement is checked, the side-by-side ones beside the table too: a figure from
    // answers that were errors, or 200s where 304s were asked, would be a figure of nothing.
    const check = (name: string, who: string, runs: LoadResult[], loadPlan: LoadPlan) => {
      const smallest = Math.min(...loadPlan.requests.map((r) => captured.get(r.path)!.body.byteLength));
      for (const r of runs) {
        // wrk counts statuses of 400 and above; the bytes per answer tell a 304 from a 200.
        const sized = loadPlan.status === 304 ? r.bytesPerAnswer < 1024 : r.bytesPerAnswer >= smallest;
        if (r.expected !== r.total || r.errors > 0 || !sized)
          problems.push(
            `${name} (${who}): ${r.total - r.expected}/${r.total} answers 4xx or 5xx, ${r.errors} errors, ${r.bytesPerAnswer.toFixed(0)} bytes per answer (expected ${loadPlan.status})`,
          );
      }
    };
    for (const benchCase of cases) {
      const modes = [
        ['cached', benchCase.cached, folio],
        ['cold', benchCase.cold, cold],
        ...(benchCase.rateLimited ? [[`cached, rate limit`, benchCase.cached, limited] as const] : []),
      ] as const;
      for (const [mode, loadPlan, target] of modes) {
        const name = `${benchCase.name}, ${mode}`;
        if (options.only && !options.only.some((part) => name.includes(part))) continue;
        const load = { ...options, connections: benchCase.connections ?? options.connections, loadCpu };
        const [folioRuns, bareRuns] = await measureRuns(
          options.runs,
          () => runLoad(target.origin, target.server.child.pid!, loadPlan, { ...load, metrics: true }),
          () => runLoad(bare.origin, bare.child.pid!, loadPlan, load),
          options.sideBySide ?? false,
        );
        check(name, 'Folio', folioRuns, loadPlan);
        check(name, 'bare', bareRuns, loadPlan);
        const row = { name, folio: median(folioRuns), bare: median(bareRuns) };
        log(
          `${name}: Folio ${row.folio.requestsPerSecond.toFixed(0)} req/s (${row.folio.cpuUsPerAnswer.toFixed(1)} µs CPU per answer), bare ${row.bare.requestsPerSecond.toFixed(0)} req/s (${row.bare.cpuUsPerAnswer.toFixed(1)} µs); Folio GC ${gcText(row.folio.gc)}${refusalText(row.folio.refusals)}`,
        );
        rows.push(row);
      }
    }
    const readsPlan = cases[2]!.cached;
    // Two servers loaded side by side outside the table, the first in `folio`'s place (Folio's
    // metrics are scraped only when it is Folio), logged as `said` puts it.
    const pair = async (
      name: string,
      first: { who: string; origin: string; pid: number; metrics: boolean },
      second: { who: string; origin: string; pid: number },
      loadPlan: LoadPlan,
      said: (a: string, b: string) => string,
    ): Promise<DeliveryRow> => {
      const load = { ...options, loadCpu };
      const [firstRuns, secondRuns] = await measureRuns(
        options.runs,
        () => runLoad(first.origin, first.pid, loadPlan, { ...load, metrics: first.metrics }),
        () => runLoad(second.origin, second.pid, loadPlan, load),
        true,
      );
      check(name, first.who, firstRuns, loadPlan);
      check(name, second.who, secondRuns, loadPlan);
      const row = { name, folio: median(firstRuns), bare: median(secondRuns) };
      const figures = (r: LoadResult) =>
        `${r.requestsPerSecond.toFixed(0)} req/s (${r.cpuUsPerAnswer.toFixed(1)} µs)`;
      log(said(figures(row.folio), figures(row.bare)));
      return row;
    };
    const bareServer = { who: 'bare', origin: bare.origin, pid: bare.child.pid! };
    let control: DeliveryRow | undefined;
    if (twin && (!options.only || options.only.some((part) => 'by-slug, cached'.includes(part)))) {
      const name = 'by-slug, cached: bare against a second bare server';
      control = await pair(
        name,
        { who: 'second bare', origin: twin.origin, pid: twin.child.pid!, metrics: false },
        bareServer,
        readsPlan,
        (a, b) => `control, ${name}: ${a} against ${b}`,
      );
    }
    let primed: DeliveryReport['primed'];
    const primedPlans = cases.flatMap((c) => {
      const name = `${c.name}, cached`;
      return PRIMED_ROWS.includes(name) && (!options.only || options.only.some((part) => name.includes(part)))
        ? [{ name, plan: c.cached }]
        : [];
    });
    if (primedBare && primedPlans.length > 0) {
      const primedServer = { who: 'primed bare', origin: primedBare.origin, pid: primedBare.child.pid! };
      const share = await pair(
        'by-slug, cached',
        { ...primedServer, metrics: false },
        bareServer,
        readsPlan,
        (a, b) => `the process's share, by-slug, cached: primed bare ${a} against clean bare ${b}`,
      );
      const primedRows: DeliveryRow[] = [];
      for (const { name, plan: loadPlan } of primedPlans) {
        primedRows.push(
          await pair(
            name,
            { who: 'Folio', origin: folio.origin, pid: folio.server.child.pid!, metrics: true },
            primedServer,
            loadPlan,
            (a, b) => `${name}, against the primed bare server: Folio ${a}, primed bare ${b}`,
          ),
        );
      }
      primed = { priming, share, rows: primedRows };
    }
    const invalidBody =
      options.only && !options.only.some((part) => 'invalid body'.includes(part))
        ? undefined
        : await benchInvalidBodies({
            origin: folio.origin,
            pid: folio.server.child.pid!,
            projectId: seeded.projectId,
            plan: readsPlan,
            load: { connections: options.connections, durationSeconds: options.durationSeconds * 2, loadCpu },
          });
    if (invalidBody)
      log(
        `invalid bodies: ${invalidBody.posts} (${invalidBody.statuses}), ${invalidBody.answerMs.toFixed(0)} ms each, event loop max ${invalidBody.reads.loopMaxMs.toFixed(0)} ms`,
      );
    return {
      database: store.name,
      articles: options.articles,
      deepPage,
      seedMs: seeded.ms,
      listPageBytes: captured.get(listPath(1))!.body.byteLength,
      articleBytes: captured.get(coldSlugs[0]!)!.body.byteLength,
      sitemap,
      coldMethod: hasCacheVariable
        ? `a second Folio process with ${CACHE_VARIABLE}=0, each request a different URL`
        : `each request a different URL (the server has no ${CACHE_VARIABLE}; the sitemap has one URL, so its cold row repeats it)`,
      rows,
      invalidBody,
      initialSync,
      schedulerIdle,
      problems,
      cpus: cpus && { ...cpus, speeds: cpuSpeeds },
      control,
      primed,
    };
  } finally {
    for (const child of children.reverse()) {
      if ('child' in child) await stop(child);
      else if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
    }
    await store.drop();
  }
}

/** Fetches each path once from Folio: the status, the headers a client uses and the body. */
async function capture(
  origin: string,
  headers: Record<string, string>,
  paths: string[],
): Promise<Map<string, CapturedResponse>> {
  const captured = new Map<string, CapturedResponse>();
  for (const p of paths) {
    // Identity, as the load asks: fetch would otherwise ask for gzip, and the tags captured, and
    // revalidated in the 304 case, would be the gzip variant's.
    const response = await fetch(`${origin}${p}`, { headers: { ...headers, 'accept-encoding': 'identity' } });
    const body = new Uint8Array(await response.arrayBuffer());
    if (response.status !== 200) throw new Error(`GET ${p} answered ${response.status}`);
    const kept: Record<string, string> = {};
    for (const name of ['content-type', 'etag', 'cache-control', 'vary']) {
      const value = response.headers.get(name);
      if (value !== null) kept[name] = value;
    }
    captured.set(p, { path: p, status: response.status, headers: kept, body });
  }
  return captured;
}

/** The cursor a complete first sync of the feed ends with. */
async function lastCursor(origin: string, base: string, headers: Record<string, string>): Promise<string> {
  let cursor: string | undefined;
  for (;;) {
    const response = await fetch(`${origin}${base}/changes?limit=100${cursor ? `&since=${cursor}` : ''}`, {
      headers,
    });
    const page = ((await response.json()) as { data: { cursor: string; hasMore: boolean } }).data;
    cursor = page.cursor;
    if (!page.hasMore) return cursor;
  }
}

async function startBare(
  responses: CapturedResponse[],
  dir: string,
  priming?: Priming,
): Promise<{ child: ChildProcess; origin: string }> {
  const file = path.join(dir, 'bare-responses.bin');
  fs.writeFileSync(file, v8.serialize(responses));
  const port = await freePort();
  // Folio's own Node flags (heap sizes, compile cache): the two differ only in what answers.
  const args = [...SERVER_NODE_FLAGS, BARE_SERVER, file, String(port)];
  const child = spawn(process.execPath, priming ? [...args, JSON.stringify(priming)] : args, {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
  });
  return { child, origin: `http://127.0.0.1:${port}` };
}

/**
 * The sitemap fetched alone five times: median time to first byte and to the last byte. The
 * client is `node:http` reading raw chunks, as curl would: `fetch` turns each chunk into a web
 * stream read, and on these shared cores the time measured for a large body was then mostly the
 * client's.
 */
async function timeSitemap(
  target: { server: ServerProcess; origin: string },
  sitemapPath: string,
  headers: Record<string, string>,
): Promise<DeliveryReport['sitemap']> {
  const ttfb: number[] = [];
  const total: number[] = [];
  let bytes = 0;
  let peakKb = 0;
  const sampler = setInterval(() => {
    peakKb = Math.max(peakKb, readRssKb(target.server.child.pid!));
  }, 10);
  try {
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const timing = await new Promise<{ first: number; bytes: number }>((resolve, reject) => {
        const request = http.get(`${target.origin}${sitemapPath}`, { headers }, (response) => {
          let first = 0;
          let received = 0;
          response.on('data', (chunk: Buffer) => {
            if (received === 0) first = performance.now() - started;
            received += chunk.byteLength;
          });
          response.on('end', () => resolve({ first, bytes: received }));
          response.on('error', reject);
        });
        request.on('error', reject);
      });
      total.push(performance.now() - started);
      ttfb.push(timing.first);
      bytes = timing.bytes;
    }
  } finally {
    clearInterval(sampler);
  }
  return { bytes, ttfbMs: middle(ttfb), totalMs: middle(total), rssMb: peakKb / 1024 };
}

/**
 * `runs` runs of each load, in pairs: each pair at the same time (each server then gets about
 * half of the CPU they share, at whatever speed it runs during those seconds), or one after the
 * other.
 */
async function measureRuns(
  runs: number,
  first: () => Promise<LoadResult>,
  second: () => Promise<LoadResult>,
  sideBySide: boolean,
): Promise<[LoadResult[], LoadResult[]]> {
  const firsts: LoadResult[] = [];
  const seconds: LoadResult[] = [];
  for (let run = 0; run < runs; run++) {
    const [a, b] = sideBySide ? await Promise.all([first(), second()]) : [await first(), await second()];
    firsts.push(a);
    seconds.push(b);
  }
  return [firsts, seconds];
}

function median(runs: LoadResult[]): LoadResult {
  const pick = (field: Exclude<keyof LoadResult, 'refusals' | 'gc'>) => middle(runs.map((r) => r[field]));
  return {
    requestsPerSecond: pick('requestsPerSecond'),
    p50: pick('p50'),
    p99: pick('p99'),
    rssMb: pick('rssMb'),
    cpuUsPerAnswer: pick('cpuUsPerAnswer'),
    bytesPerAnswer: pick('bytesPerAnswer'),
    loopP99Ms: pick('loopP99Ms'),
    // The worst run's: a stall in any run is what the figure is for.
    loopMaxMs: Math.max(...runs.map((r) => r.loopMaxMs)),
    expected: pick('expected'),
    total: pick('total'),
    errors: pick('errors'),
    // All runs': a refusal in any run is what the figure is for.
    refusals: sumRefusals(runs),
    gc: medianGc(runs),
  };
}

/** The fast path's refusals of a row's runs, when there were any: why a cached row ran slow. */
function refusalText(refusals: Record<string, number>): string {
  const parts = Object.entries(refusals).map(([reason, count]) => `${reason} ${count}`);
  return parts.length > 0 ? `; fast path refused ${parts.join(', ')}` : '';
}

function medianGc(runs: LoadResult[]): LoadResult['gc'] {
  const measured = runs.flatMap((r) => (r.gc ? [r.gc] : []));
  if (measured.length === 0) return undefined;
  return {
    scavenges: middle(measured.map((g) => g.scavenges)),
    scavengeMs: middle(measured.map((g) => g.scavengeMs)),
    majors: middle(measured.map((g) => g.majors)),
  };
}

/** A row's garbage collections, for its log line and its table cell. */
export function gcText(gc: LoadResult['gc']): string {
  return gc ? `${gc.scavenges} × ${gc.scavengeMs.toFixed(1)} ms, ${gc.majors} major` : '–';
}

function sumRefusals(runs: LoadResult[]): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const run of runs) {
    for (const [reason, count] of Object.entries(run.refusals)) sum[reason] = (sum[reason] ?? 0) + count;
  }
  return sum;
}

function middle(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
