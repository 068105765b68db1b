import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { benchWebhooks, type WebhookPass } from './webhooks.ts';

/*
 * `npm run bench [-- --write] [case…]`: runs the benchmark cases (all by default) and prints a
 * table; `--write` also replaces the case's section of BENCHMARKS.md with the figures and the
 * machine they were measured on.
 * Environment: BENCH_DATABASE_URL (also run on that PostgreSQL, in a schema of its own, dropped
 * afterwards), BENCH_WEBHOOK_ARTICLES (articles per pass, default 500).
 */

const CASES = ['webhooks'] as const;
const BENCHMARKS_FILE = new URL('../BENCHMARKS.md', import.meta.url);

const args = process.argv.slice(2);
const write = args.includes('--write');
const chosen = args.filter((arg) => !arg.startsWith('--'));
for (const name of chosen) {
  if (!(CASES as readonly string[]).includes(name)) {
    process.stderr.write(`bench: unknown case "${name}"; cases: ${CASES.join(', ')}\n`);
    process.exit(2);
  }
}

if (chosen.length === 0 || chosen.includes('webhooks')) {
  const articles = Number(process.env.BENCH_WEBHOOK_ARTICLES ?? 500);
  const databases = [undefined, process.env.BENCH_DATABASE_URL].filter((url, i) => i === 0 || url);
  const passes: WebhookPass[] = [];
  for (const databaseUrl of databases) passes.push(...(await benchWebhooks({ articles, databaseUrl })));
  const table = webhookTable(passes);
  const machine = await machineNotes(process.env.BENCH_DATABASE_URL);
  process.stdout.write(
    `\nWebhooks: publish (PUT sent) to arrival at a local receiver\n\n${table}\n\n${machine}\n`,
  );
  if (write) writeSection('Webhooks', webhookSection(table, machine, articles));
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
    'PostgreSQL pool) with the writers, so during a burst deliveries trail the publishes.',
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
  process.stdout.write(`\nwrote the "${title}" section of BENCHMARKS.md\n`);
}
