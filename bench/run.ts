import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { DEFAULT_RESPONSE_CACHE_MB } from '../packages/server/src/config.ts';
import { primeCompileCache } from '../packages/server/src/test/server-process.ts';
import {
  benchDelivery,
  type DeliveryReport,
  type DeliveryRow,
  gcText,
  UNSPENT_RATE_LIMIT,
} from './delivery.ts';
import { benchFlood, type FloodReport, floodText } from './flood.ts';
import { timeHttpImport } from './http-import.ts';
import { benchLarge, type LargeReport, largeText } from './large.ts';
import { timeCpus } from './load.ts';
import { benchScale, type ScaleReport, scaleTable } from './scale.ts';
import { benchScheduleBurst, type ScheduleBurst } from './schedules.ts';
import { benchWebhooks, type WebhookPass } from './webhooks.ts';

/*
 * `npm run bench [-- --write] [case…]`: runs the benchmark cases (all by default) and prints a
 * table; `--write` also replaces the sections of BENCHMARKS.md of the cases that ran with the
 * figures and the machine they were measured on.
 * Delivery options: --articles N[,N…] (catalogue sizes, default 10000), --runs N (default 3),
 * --duration S (seconds per load run, default 5), --connections N (default 32),
 * --import-articles N (articles imported over HTTP for the import time, default 10000; 0 skips),
 * --postgres-only (skip the SQLite run; needs BENCH_DATABASE_URL), --only TEXT, repeatable (only the
 * rows whose name contains one of them, e.g. `--only "by-slug, cached" --only 304`; not with
 * --write), --no-pin (by default the servers share the slower CPU and the load generator takes
 * the other, with taskset: the vCPUs of a shared machine may run at different speeds, and an
 * unpinned server's cost then depends on where the scheduler puts it; BENCHMARKS.md, "Delivery"),
 * --no-side-by-side (by default Folio and the bare server are loaded at the same time, each by its
 * own wrk, so that both are measured at the same CPU speed; this runs them one after the other).
 * Flood (`flood`, not in the default set): a key holder asks one server for distinct URLs for
 * --duration seconds over --connections, on a catalogue of --flood-articles (default 1000).
 * Large articles (`large`, not in the default set): --large-articles articles near the body limit
 * (default 100), each with a draft, and --connections slow readers of each list at once.
 * Scale (`scale`, not in the default set: minutes): one large project, BENCH_SCALE_ARTICLES
 * articles (default 50000), its preview reads, a webhook claim and a site settings change.
 * Environment: BENCH_DATABASE_URL (also run on that PostgreSQL, in a schema of its own, dropped
 * afterwards), BENCH_WEBHOOK_ARTICLES (articles per pass, default 500), FOLIO_SERVER_NODE_FLAGS
 * (more Node flags for the servers, a JSON array: `["--cpu-prof","--cpu-prof-dir=/tmp/prof"]`).
 */

const CASES = ['delivery', 'webhooks', 'schedules', 'flood', 'large', 'scale'] as const;
// Run only when named: a flood and large articles are fault tests, not throughput figures; scale
// takes minutes.
const DEFAULT_CASES = ['delivery', 'webhooks', 'schedules'];
const BENCHMARKS_FILE = new URL('../BENCHMARKS.md', import.meta.url);

const { values: flags, positionals: chosen } = parseArgs({
  allowPositionals: true,
  allowNegative: true,
  options: {
    write: { type: 'boolean', default: false },
    articles: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '32' },
    'import-articles': { type: 'string', default: '10000' },
    'flood-articles': { type: 'string', default: '1000' },
    'large-articles': { type: 'string', default: '100' },
    'postgres-only': { type: 'boolean', default: false },
    pin: { type: 'boolean', default: true },
    'side-by-side': { type: 'boolean', default: true },
    only: { type: 'string', multiple: true },
  },
});
const only = flags.only;
if (flags.write && only) {
  process.stderr.write('bench: --only measures part of a section; it cannot --write\n');
  process.exit(2);
}
const write = flags.write;
for (const name of chosen) {
  if (!(CASES as readonly string[]).includes(name)) {
    process.stderr.write(`bench: unknown case "${name}"; cases: ${CASES.join(', ')}\n`);
    process.exit(2);
  }
}
// The servers start as an installed server does: with every module in the compile cache.
primeCompileCache();

const databases = [undefined, process.env.BENCH_DATABASE_URL].filter((url, i) =>
  i === 0 ? !flags['postgres-only'] : url,
);

const runs = (name: string) => (chosen.length === 0 ? DEFAULT_CASES.includes(name) : chosen.includes(name));

if (runs('delivery')) {
  const reports: DeliveryReport[] = [];
  const imports: Array<{ database: string; ms: number }> = [];
  const importArticles = Number(flags['import-articles']);
  for (const databaseUrl of databases) {
    for (const articles of flags.articles.split(',').map(Number)) {
      reports.push(
        await benchDelivery({
          databaseUrl,
          articles,
          runs: Number(flags.runs),
          connections: Number(flags.connections),
          durationSeconds: Number(flags.duration),
          only,
          pin: flags.pin,
          sideBySide: flags['side-by-side'],
        }),
      );
    }
    if (importArticles > 0) {
      const ms = await timeHttpImport({ databaseUrl, articles: importArticles, clients: 4 });
      imports.push({ database: reports.at(-1)!.database, ms });
    }
  }
  const machine = await machineNotes(process.env.BENCH_DATABASE_URL);
  const text = deliveryText(reports, imports, importArticles);
  process.stdout.write(`\n${text}\n\n${machine}\n`);
  if (write) writeSection('Delivery', deliverySection(text, machine));
}

if (runs('webhooks')) {
  const articles = Number(process.env.BENCH_WEBHOOK_ARTICLES ?? 500);
  const passes: WebhookPass[] = [];
  for (const databaseUrl of databases) passes.push(...(await benchWebhooks({ articles, databaseUrl })));
  const table = webhookTable(passes);
  const machine = await machineNotes(process.env.BENCH_DATABASE_URL);
  process.stdout.write(
    `\nWebhooks: publish (PUT sent) to arrival at a local receiver\n\n${table}\n\n${machine}\n`,
  );
  if (write) writeSection('Webhooks', webhookSection(table, machine, articles));
}

if (runs('schedules')) {
  const articles = Number(process.env.BENCH_SCHEDULE_ARTICLES ?? 1000);
  const speeds = timeCpus();
  const bursts: ScheduleBurst[] = [];
  for (const databaseUrl of databases) bursts.push(await benchScheduleBurst({ articles, databaseUrl }));
  const loop = speeds?.map((ms, cpu) => `${ms.toFixed(0)} ms on CPU ${cpu}`).join(', ') ?? '(not timed)';
  const table = `${scheduleTable(bursts)}\n\nOne JavaScript loop took ${loop} at the start (unpinned run).`;
  const machine = await machineNotes(process.env.BENCH_DATABASE_URL);
  process.stdout.write(`\nScheduled publishing: a burst due at one instant\n\n${table}\n\n${machine}\n`);
  if (write) writeSection('Scheduled publishing', scheduleSection(table, machine, articles));
}

if (runs('scale')) {
  const articles = Number(process.env.BENCH_SCALE_ARTICLES ?? 50_000);
  const reports: ScaleReport[] = [];
  for (const databaseUrl of databases) reports.push(await benchScale({ databaseUrl, articles }));
  const table = scaleTable(reports);
  const machine = await machineNotes(process.env.BENCH_DATABASE_URL);
  process.stdout.write(`\nLarge projects\n\n${table}\n\n${machine}\n`);
  if (write) writeSection('Large projects', scaleSection(table, machine, articles));
}

if (runs('flood')) {
  const reports: FloodReport[] = [];
  for (const databaseUrl of databases) {
    reports.push(
      await benchFlood({
        databaseUrl,
        articles: Number(flags['flood-articles']),
        durationSeconds: Number(flags.duration),
        connections: Number(flags.connections),
      }),
    );
  }
  const text = floodText(reports);
  const machine = await machineNotes(process.env.BENCH_DATABASE_URL);
  process.stdout.write(`\nFlood of distinct URLs\n\n${text}\n\n${machine}\n`);
  if (write) writeSection('Flood of distinct URLs', floodSection(text, machine, reports[0]!.articles));
}

if (runs('large')) {
  const reports: LargeReport[] = [];
  for (const databaseUrl of databases) {
    reports.push(
      await benchLarge({
        databaseUrl,
        articles: Number(flags['large-articles']),
        readers: Number(flags.connections),
      }),
    );
  }
  const text = largeText(reports);
  const machine = await machineNotes(process.env.BENCH_DATABASE_URL);
  process.stdout.write(`\nLarge articles\n\n${text}\n\n${machine}\n`);
  if (write) writeSection('Large articles', largeSection(text, machine, reports[0]!));
}

function largeSection(text: string, machine: string, report: LargeReport): string {
  return [
    'Measured with `npm run bench -- --write large` (see `bench/large.ts`): a Folio server child',
    `process as \`npm start\` runs it (a heap limit of 512 MB) on ${report.articles} published articles of`,
    `${(report.articleBytes / 1e6).toFixed(2)} MB each (the body limit is 1 MiB), made of the smallest blocks there are, each with a`,
    'draft as large. For each list, as many clients at once as the table says ask for pages of',
    '100, 99, 98… articles and read them at 8 MB/s, slower than the server sends. A list is read',
    'and written a run of articles at a time (`services/json-runs.ts`), and an answer over 1 MiB',
    'is streamed one chunk ahead of its reader, so what the server holds does not grow with page',
    'or article size (before, one request for the management list of these articles aborted',
    'the server). A process makes a bounded number of answers at once (`http/answer-slots.ts`: 16',
    'on this heap), each holding its turn until its reader has it all; a request that waits 10 s',
    'for a turn is turned away with 503 `unavailable` (before that bound, 200 readers of the',
    'delivery list at 50 KB/s aborted the server). RSS is VmRSS of the server before the readers,',
    `at its peak while they read and 2 s after. Measured on ${new Date().toISOString().slice(0, 10)}.`,
    '',
    text,
    '',
    machine,
  ].join('\n');
}

function floodSection(text: string, machine: string, articles: number): string {
  return [
    'Measured with `npm run bench -- --write flood` (see `bench/flood.ts`): a Folio server child',
    `process as \`npm start\` runs it (default \`FOLIO_RESPONSE_CACHE_MB\`, ${DEFAULT_RESPONSE_CACHE_MB}; a heap limit of 512 MB) on ${articles.toLocaleString('en')}`,
    'articles, and a key holder asking it, through wrk (one thread, a Lua `request()`), for URLs never asked before: page',
    'numbers past the end, real pages in new sizes, unknown slugs and unknown query parameters,',
    'with one of two hot URLs (list page 1, one article) every tenth request. RSS is VmRSS of the',
    'server: before the flood, its peak during it, and 2 s after. The cost per entry and the',
    "simulated flood are `bench/entry-cost.ts`'s. The contract's bound is 300 MB.",
    `Measured on ${new Date().toISOString().slice(0, 10)}.`,
    '',
    text,
    '',
    machine,
  ].join('\n');
}

/**
 * The process's share, beside the table: a bare server that did a server's other I/O first,
 * against the clean one, and Folio's fast rows against it. The table's ratios stay against the
 * clean bare server.
 */
function primedText(primed: NonNullable<DeliveryReport['primed']>): string[] {
  const ratios = (row: DeliveryRow) =>
    `req/s ${(row.folio.requestsPerSecond / row.bare.requestsPerSecond).toFixed(2)}, CPU ${(row.bare.cpuUsPerAnswer / row.folio.cpuUsPerAnswer).toFixed(2)}`;
  const { compressions, postgres } = primed.priming;
  const did = postgres
    ? [
        `(${compressions} brotli compressions of its answers and ${postgres.queries} queries through a pg pool`,
        'it keeps open and polls once a second)',
      ]
    : [`(${compressions} brotli compressions of its answers)`];
  return [
    `The process's share, ${primed.share.name}: a bare server that first did a server's other I/O`,
    ...did,
    `against the clean one: ${ratios(primed.share)} (${primed.share.folio.cpuUsPerAnswer.toFixed(1)} µs against ${primed.share.bare.cpuUsPerAnswer.toFixed(1)} µs).`,
    'Folio against that primed bare server, side by side:',
    `${primed.rows.map((row) => `${row.name} ${ratios(row)}`).join('; ')}.`,
  ];
}

function deliveryText(
  reports: DeliveryReport[],
  imports: Array<{ database: string; ms: number }>,
  importArticles: number,
): string {
  const parts = reports.map((report) => {
    const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
    const rows = report.rows.map((row) =>
      [
        row.name,
        rate(row.folio.requestsPerSecond),
        ms(row.folio.p50),
        ms(row.folio.p99),
        row.folio.cpuUsPerAnswer.toFixed(1),
        `${row.folio.loopMaxMs.toFixed(0)} ms`,
        gcText(row.folio.gc),
        `${row.folio.rssMb.toFixed(0)} MB`,
        rate(row.bare.requestsPerSecond),
        row.bare.cpuUsPerAnswer.toFixed(1),
        (row.folio.requestsPerSecond / row.bare.requestsPerSecond).toFixed(2),
        (row.bare.cpuUsPerAnswer / row.folio.cpuUsPerAnswer).toFixed(2),
      ].join(' | '),
    );
    const { sitemap, invalidBody, initialSync, schedulerIdle } = report;
    return [
      `Delivery, ${report.database}, ${report.articles.toLocaleString('en')} articles (list page 1: ${kb(report.listPageBytes)},`,
      `one article: ${kb(report.articleBytes)}; catalogue loaded through the services in ${(report.seedMs / 1000).toFixed(1)} s).`,
      `Cold: ${report.coldMethod}.`,
      ...(report.cpus
        ? [
            `Servers on CPU ${report.cpus.server}, wrk on CPU ${report.cpus.load}; one JavaScript loop took ${report.cpus.speeds?.map((ms, cpu) => `${ms.toFixed(0)} ms on CPU ${cpu}`).join(', ') ?? '(not timed)'} at the start.`,
          ]
        : []),
      `Sitemap alone, cold, read with a node:http client (median of 5, ${kb(sitemap.bytes)}): first byte ${sitemap.ttfbMs.toFixed(0)} ms,`,
      `last byte ${sitemap.totalMs.toFixed(0)} ms, server RSS ${sitemap.rssMb.toFixed(0)} MB.`,
      ...(initialSync
        ? [
            `A first build, cold, one request at a time (median of 3): the changes feed from no cursor to the end`,
            `${(initialSync.syncMs / 1000).toFixed(2)} s (${initialSync.syncRequests} requests), paging the list (limit 100) ${(initialSync.listMs / 1000).toFixed(2)} s`,
            `(${initialSync.listRequests} requests): ${(initialSync.syncMs / initialSync.listMs).toFixed(2)}× the list's time.`,
          ]
        : []),
      ...(schedulerIdle
        ? [
            `The publishing scheduler with nothing due (20 s of idle servers, from PostgreSQL's counters):`,
            `${schedulerIdle.pollsPerSecond.toFixed(2)} polls/s per server process, each two probes of empty partial indexes;`,
            `${schedulerIdle.seqScansPerSecond.toFixed(2)} sequential scans/s of the articles table.`,
          ]
        : []),
      ...(report.control
        ? [
            `The method's own error, ${report.control.name}: req/s ${(report.control.folio.requestsPerSecond / report.control.bare.requestsPerSecond).toFixed(2)},`,
            `CPU ${(report.control.bare.cpuUsPerAnswer / report.control.folio.cpuUsPerAnswer).toFixed(2)} (${report.control.folio.cpuUsPerAnswer.toFixed(1)} µs against ${report.control.bare.cpuUsPerAnswer.toFixed(1)} µs; 1.00 is no error).`,
          ]
        : []),
      ...(report.primed ? primedText(report.primed) : []),
      '',
      '| case | Folio req/s | p50 | p99 | Folio µs/answer | loop delay max | Folio GC | Folio RSS | bare req/s | bare µs/answer | req/s Folio/bare | CPU bare/Folio |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|',
      ...rows.map((row) => `| ${row} |`),
      ...(invalidBody
        ? [
            '',
            `Invalid bodies: ${invalidBody.posts} \`PUT\`s of one article with ${invalidBody.blocks.toLocaleString('en')} invalid blocks`,
            `(${(invalidBody.bodyBytes / 1024).toFixed(0)} KB; answered ${invalidBody.statuses}), one after another while cached by-slug reads ran`,
            `(${rate(invalidBody.reads.requestsPerSecond)} req/s, p99 ${ms(invalidBody.reads.p99)}): each answered in ${invalidBody.answerMs.toFixed(0)} ms`,
            `(max ${invalidBody.answerMaxMs.toFixed(0)} ms); the server's event-loop delay meanwhile: p99 ${invalidBody.reads.loopP99Ms.toFixed(0)} ms, max ${invalidBody.reads.loopMaxMs.toFixed(0)} ms.`,
          ]
        : []),
      ...(report.problems.length > 0
        ? ['', 'Unexpected answers:', ...report.problems.map((p) => `- ${p}`)]
        : []),
    ].join('\n');
  });
  for (const { database, ms } of imports) {
    parts.push(
      `Import over HTTP, ${database}: ${importArticles.toLocaleString('en')} articles, one PUT each, 4 clients:` +
        ` ${(ms / 1000).toFixed(1)} s (${((importArticles * 1000) / ms).toFixed(0)} articles/s).`,
    );
  }
  return parts.join('\n\n');
}

/** A latency: tenths of a millisecond, since cached answers take well under one. */
function ms(value: number): string {
  return `${value.toFixed(1)} ms`;
}

/** Requests per second: whole numbers, with a decimal below 10 where rounding would hide it. */
function rate(perSecond: number): string {
  return perSecond < 10 ? perSecond.toFixed(1) : perSecond.toFixed(0);
}

function deliverySection(text: string, machine: string): string {
  return [
    'Measured with `npm run bench -- --write delivery` (see `bench/delivery.ts`): a catalogue of',
    'generated articles (paragraphs with marks and links, headings, lists, an image, a code block,',
    'sometimes a table, FAQ, callout, quote or video) loaded into a fresh database through the',
    "server's own services (`upsertArticle`, 500 per transaction; then `VACUUM ANALYZE` on PostgreSQL,",
    'as autovacuum would do after a bulk load), a Folio server child process on it, and a bare `node:http` child',
    'answering the exact bytes and headers Folio answered for the same paths (304 when',
    '`If-None-Match` matches), with the same Node flags, and, as Folio does, answering the requests',
    'that arrived in one turn of the event loop together (`setImmediate`). A bare server answering',
    'each request as it is parsed is no limit for Folio: it cost 28–31 µs of CPU per 4.4 KB answer',
    "against 18 µs batched (wrk, 32 connections), and Folio's cached rows ran at up to 1.35 of it.",
    'Load: `wrk` (C, one thread; a Lua script sets the headers and, for the cold rows, cycles',
    'through the URLs) on 127.0.0.1, identity encoding, the connections and',
    `seconds per run given below; each figure is the median of the runs (Folio and bare ${flags['side-by-side'] ? 'side by side' : 'alternate'}).`,
    "Latency is wrk's. µs/answer is the CPU time (user + system, from",
    '`/proc/<pid>/stat`) the server process spent during the run divided by the answers wrk got:',
    'what an answer costs the server, steadier than req/s on shared cores. "CPU bare/Folio" is the',
    "bare server's µs per answer over Folio's (1.00: Folio costs what a bare `node:http` server",
    'costs). "loop delay max" is the largest event-loop delay of the Folio process over a run',
    "(prom-client's `nodejs_eventloop_lag_max_seconds`, 10 ms resolution, reset by a scrape of",
    '`/metrics` before the run and read by one after; worst of the runs). "Folio GC" is the',
    "process's garbage collections during a run, from the same scrapes (`nodejs_gc_duration_seconds`):",
    'scavenges × their mean pause, and major collections (medians of the runs); a pause is wall-clock',
    "time, which side by side includes the other server's turns on the CPU. RSS is the peak VmRSS of",
    'the server process during a run. "cached" repeats one URL; "cold" cycles through distinct URLs',
    '(50 list pages, 2,000 slugs) so no response is asked for twice in a row. "rate limit" rows ask',
    `a third Folio process started with \`FOLIO_RATE_LIMIT=${UNSPENT_RATE_LIMIT}\`, a budget the load never`,
    'spends: beside the row above them, what counting every cached answer against its key costs.',
    ...(flags.pin
      ? [
          'Every server runs on one CPU and wrk on the other (`taskset`; `--no-pin` lets them move): the',
          'servers on the slower of the two when the run starts, so that they, not wrk, are what a run',
          'saturates. The two vCPUs of this shared virtual machine ran one loop of JavaScript at speeds',
          'up to 2× apart, and not the same one faster from minute to minute (each table says how they',
          'stood): unpinned, a run measured whichever CPU the scheduler gave the server, and the ratio of',
          'two runs could be that of two CPUs. A bare figure is the limit of this machine with this',
          'generator, not of `node:http`.',
        ]
      : [
          'wrk and the servers share the 2 cores (`--no-pin`), so a bare figure is the limit of this',
          'machine with this generator, not of `node:http`.',
        ]),
    ...(flags['side-by-side']
      ? [
          'Folio and the bare server are loaded at the same time, each by its own wrk, on the CPU they',
          'share (`--no-side-by-side` loads them one after the other): that CPU ran one server at 16 µs',
          'an answer and, minutes later, at 22 µs, so two servers measured in turn could differ by the',
          'CPU alone. Side by side each gets about half of the CPU at the same speed: req/s are about',
          'half what one server alone answers, and their ratio, like the CPU ratio, compares what an',
          "answer costs each. A control runs the bare server against a second bare server: the method's",
          "own error, given above each table. Another, the process's share, runs a bare server that first",
          "did a server's other I/O against the clean one, and Folio's fast rows against it (How the delivery",
          'path works, "Why the process matters"); the table\'s ratios stay against the clean bare server.',
        ]
      : []),
    `Each row: ${flags.runs} runs per server of ${flags.duration} s, ${flags.connections} connections (the sitemap 4), after an untimed`,
    'warm-up. The invalid-body run posts while a by-slug, cached load runs twice as long.',
    "A req/s ratio above 1 is not Folio answering faster than the bare server: the sitemap's 1.2 MB",
    'answers over 4 connections are limited by wrk and the copies in the kernel, not by the server,',
    'so req/s there is noise and the CPU ratio is the figure.',
    `The machine is shared with other work (see the load average). Measured on ${new Date().toISOString().slice(0, 10)}.`,
    '',
    text,
    '',
    machine,
  ].join('\n');
}

function webhookTable(passes: WebhookPass[]): string {
  const rows = passes.map((p) =>
    [
      p.database,
      p.name,
      String(p.articles),
      `${p.latencyP50.toFixed(1)} ms`,
      `${p.latencyP99.toFixed(1)} ms`,
      `${p.latencyMax.toFixed(1)} ms`,
      p.publishesPerSecond.toFixed(0),
      p.deliveriesPerSecond.toFixed(0),
      `${p.drainMs.toFixed(0)} ms`,
      String(p.duplicates),
    ].join(' | '),
  );
  return [
    '| database | publishers | articles | latency p50 | latency p99 | latency max | publishes/s | deliveries/s | drain after last publish | duplicates |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((row) => `| ${row} |`),
  ].join('\n');
}

function scheduleTable(bursts: ScheduleBurst[]): string {
  const rows = bursts.map((b) =>
    [b.database, String(b.articles), ms(b.firstServedMs), ms(b.allServedMs), ms(b.allDeliveredMs)].join(
      ' | ',
    ),
  );
  return [
    '| database | articles due at once | first served | all served | all webhooks received |',
    '|---|---|---|---|---|',
    ...rows.map((row) => `| ${row} |`),
  ].join('\n');
}

function scaleSection(table: string, machine: string, articles: number): string {
  return [
    'Measured with `npm run bench -- --write scale` (the PostgreSQL row with `BENCH_DATABASE_URL` set;',
    `\`BENCH_SCALE_ARTICLES\` sets the size, ${articles.toLocaleString('en')} here): one project of generated articles`,
    'loaded as the Delivery section loads them, measured in-process through the services, each',
    'figure the median of 7 calls after one more. The preview reads are those of a preview key: a',
    'list page of 20 (page 1, and the middle of the project), an article by slug with its default',
    'related links, and a slug that no article has. The claim is one webhook claim (64 rows at most)',
    'while another project, skipped for having all its deliveries in flight, has as many deliveries',
    "due as the project has articles. The settings change is a PATCH of the project's",
    '`websiteUrl`: every article rewritten, renumbered and, published, reported; "longest wait" is',
    'the longest a one-row query sent every 5 ms from elsewhere waited meanwhile (on SQLite, every',
    "project's queries share the one connection). Before these paths were reworked, measured on",
    '2026-11-28 through the same services (single calls, not medians) at 50,000 articles: on SQLite',
    'the preview list took 165 ms (page 100: 500 ms), by-slug 204 ms, a miss 70 ms, the claim',
    '9.0 ms, and the settings change 7.9 s with other queries waiting all of it; on PostgreSQL the',
    'list 72 ms (page 100: 119 ms), by-slug 46 ms, the claim 6.9 ms, the settings change 22.5 s.',
    '',
    table,
    '',
    machine,
  ].join('\n');
}

function scheduleSection(table: string, machine: string, articles: number): string {
  return [
    `Measured with \`npm run bench -- --write schedules\` (the PostgreSQL row with \`BENCH_DATABASE_URL\``,
    `set): a Folio server child process, ${articles.toLocaleString('en')} articles of one project ingested with the same`,
    '`publishAt` a few seconds ahead, a content key asking for the list every 10 ms and a receiver',
    'on 127.0.0.1 answering 204 at once. Times run from the scheduled instant. The contract asks',
    'that a due schedule apply within 2 seconds of its time; the scheduler applies the schedules of',
    'a project that came due together in transactions of up to 100 articles, each one write batch:',
    "one lock, one write of the project's change counter, one statement for the events and one",
    'for the deliveries, one commit and, on PostgreSQL, one barrier. Each article still has a',
    'statement of its own (its row), so the time grows with the burst; on PostgreSQL each statement',
    'is a round trip. Before the batches, each article had a transaction of its own: 2.0 s (SQLite)',
    'and 10.6 s (PostgreSQL) for the same burst; with batches but the counter, event and delivery',
    'written per article, 4.3 s on PostgreSQL. Both were measured on 2026-11-28, when one',
    'JavaScript loop took 712 ms on this machine (see the line under the table). In the sitting of',
    'the rows below, old and new code alternated, PostgreSQL took 2.3–2.4 s with events and',
    'deliveries written per article, and 1.3–1.5 s with them written per batch.',
    '',
    table,
    '',
    machine,
  ].join('\n');
}

function webhookSection(table: string, machine: string, articles: number): string {
  return [
    `Measured with \`npm run bench -- --write webhooks\` (${articles} articles per pass; the PostgreSQL`,
    'rows with `BENCH_DATABASE_URL` set): a Folio server child process with default webhook',
    'settings (signed deliveries), a receiver in the benchmark',
    'process on 127.0.0.1 answering 204 at once. Latency runs from sending the `PUT` that publishes',
    'an article to the arrival of its `content.created` at the receiver; deliveries per second is',
    'articles / (last arrival − first `PUT` sent). "one writer" publishes one article at a time;',
    '"16 writers" keeps 16 publishes in flight, so its latency includes queueing behind the others.',
    '"drain" is the time from the last publish answered to the last arrival: the backlog the',
    'dispatcher still had. The dispatcher shares the database (one SQLite connection; the',
    'PostgreSQL pool) with the writers. A claim leases what is due within the per-project limit',
    "(`FOLIO_WEBHOOK_CONCURRENCY`, default 32) and reads the projects' webhooks once; attempts that",
    'finish together are recorded in one transaction, each fenced by its own lease; on PostgreSQL',
    "the claimed attempts wait for the change feed's barrier, the claim loop does not. A project",
    'keeps pace only while its limit covers the publish rate times the time one attempt takes,',
    "which grows as the writers keep the server's event loop (SQLite) or the pool (PostgreSQL) busy.",
    'The default was chosen by running this case with `FOLIO_WEBHOOK_CONCURRENCY` set to 4, 8, 16,',
    '32 and 64 (the server takes it from the environment): below 32, deliveries trailed 16 writers',
    'on SQLite; 4, the limit before, trailed them on both databases.',
    `The machine is shared with other work (see the load average); runs minutes apart differed by up`,
    'to 3x, so compare figures measured on one machine in one sitting. Measured on',
    `${new Date().toISOString().slice(0, 10)}.`,
    '',
    table,
    '',
    machine,
  ].join('\n');
}

async function machineNotes(databaseUrl: string | undefined): Promise<string> {
  const sqlite = new DatabaseSync(':memory:');
  const { version } = sqlite.prepare('select sqlite_version() as version').get() as { version: string };
  sqlite.close();
  const lines = [
    `Machine: ${os.availableParallelism()} CPUs (\`nproc\`: ${nproc()}), ${os.cpus()[0]?.model ?? 'unknown CPU'},`,
    `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory, ${os.type()} ${os.release()}; Node ${process.version};`,
    `SQLite ${version} (node:sqlite, WAL); load average at the start ${os.loadavg()[0]!.toFixed(1)}`,
  ];
  if (databaseUrl) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const { rows } = await client.query<{ server_version: string }>('show server_version');
    await client.end();
    lines[lines.length - 1] += `; PostgreSQL ${rows[0]?.server_version} on the same machine`;
  }
  return `${lines.join(' ')}.`;
}

function nproc(): string {
  try {
    return execFileSync('nproc', { encoding: 'utf8' }).trim();
  } catch {
    return 'n/a';
  }
}

/** Replaces `## <title>` in BENCHMARKS.md (up to the next `## `), or appends it. */
function writeSection(title: string, body: string): void {
  const heading = `## ${title}`;
  const current = fs.existsSync(BENCHMARKS_FILE)
    ? fs.readFileSync(BENCHMARKS_FILE, 'utf8')
    : '# Benchmarks\n\nRun with `npm run bench`; each section says how its figures were measured.\n';
  const section = `${heading}\n\n${body}\n`;
  const start = current.indexOf(`\n${heading}\n`);
  let next: string;
  if (start === -1) next = `${current.trimEnd()}\n\n${section}`;
  else {
    const end = current.indexOf('\n## ', start + heading.length + 1);
    next = `${current.slice(0, start + 1)}${section}${end === -1 ? '' : current.slice(end)}`;
  }
  fs.writeFileSync(BENCHMARKS_FILE, next);
  // The repository's formatter aligns the tables; unformatted, `npm test` (lint) would fail.
  const biome = new URL('../node_modules/.bin/biome', import.meta.url).pathname;
  execFileSync(biome, ['format', '--write', new URL(BENCHMARKS_FILE).pathname], { stdio: 'ignore' });
  process.stdout.write(`\nwrote the "${title}" section of BENCHMARKS.md\n`);
}
