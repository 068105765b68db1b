import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/*
 * The load generator: wrk (C, epoll), so that what the shared cores spend generating load is
 * small beside what the servers spend answering it. A Node generator on the same two cores took
 * more CPU per request than the bare server answering it, and left a server that answers in
 * batches more of the cores than one that does not: Folio ran at 1.3–1.5 of the bare server.
 * Each run gets a Lua script in a temporary directory: the requests to cycle through (or a
 * request function of its own, for the flood) and a `done` function printing the summary as JSON.
 */

// A slow answer is a long latency, not an error.
const TIMEOUT_SECONDS = 30;
// One thread: wrk's thread keeps 32 connections busy on its own core, and a second would only
// take more of the CPU the servers need.
const THREADS = 1;

/** What wrk's `done` reports for one run. */
export interface WrkSummary {
  requests: number;
  durationSeconds: number;
  bytes: number;
  /** Connection errors (connect, read, write) and timeouts. */
  errors: number;
  /** Answers with a status of 400 or more (wrk's `errors.status`). */
  failedStatus: number;
  /** Latency percentiles, ms. */
  p50: number;
  p99: number;
  max: number;
  /** Answers by status class, when the script counted them (`countStatuses`). */
  statuses?: { '2xx': number; '3xx': number; '4xx': number; '5xx': number };
}

/** One request of a run: a path and its header fields. */
export interface WrkRequest {
  path: string;
  headers: Record<string, string>;
}

export interface WrkRun {
  origin: string;
  connections: number;
  durationSeconds: number;
  /** The CPU to run wrk on (taskset), for `--pin`. */
  cpu?: number;
}

let installed = false;

/** Installs wrk with apt-get when it is missing, as `.ci/run` installs Chromium. */
export function ensureWrk(): void {
  if (installed) return;
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
  } catch (error) {
    // `wrk --version` prints its usage and exits 1; only a missing binary is ENOENT.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      process.stderr.write('bench: installing wrk with apt-get\n');
      execFileSync(
        'sh',
        ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null'],
        { stdio: 'inherit' },
      );
    }
  }
  installed = true;
}

/** Loads `origin` with `requests`: one repeated, or several taken in turn by each connection. */
export function wrkRequests(run: WrkRun, requests: WrkRequest[]): Promise<WrkSummary> {
  const [first] = requests;
  if (!first) throw new Error('wrk: no requests');
  // One request is wrk's own, built once; several are formatted once each in `init`.
  const script =
    requests.length === 1
      ? DONE
      : [
          `local paths = {${requests.map((r) => luaString(r.path)).join(',')}}`,
          `local headers = {${requests.map((r) => luaTable(r.headers)).join(',')}}`,
          'local prepared = {}',
          'local turn = 0',
          'function init(args)',
          '  for i = 1, #paths do prepared[i] = wrk.format("GET", paths[i], headers[i]) end',
          'end',
          'function request()',
          '  turn = turn % #prepared + 1',
          '  return prepared[turn]',
          'end',
          DONE,
        ].join('\n');
  const headerArgs =
    requests.length === 1 ? Object.entries(first.headers).flatMap(([n, v]) => ['-H', `${n}: ${v}`]) : [];
  return runWrk(run, script, `${first.path}`, headerArgs);
}

/**
 * Loads `origin` with a script of its own that defines `request()` (and may count statuses into
 * the globals `c2`, `c3`, `c4`, `c5` in `response()`; see `countStatuses`).
 */
export function wrkScript(run: WrkRun, requestScript: string): Promise<WrkSummary> {
  return runWrk(run, `${requestScript}\n${DONE}`, '/', []);
}

/** Lua counting each answer's status class in the thread's globals, for `done` to add up. */
export const COUNT_STATUSES = [
  'c2, c3, c4, c5 = 0, 0, 0, 0',
  'function response(status, headers, body)',
  '  if status < 300 then c2 = c2 + 1 elseif status < 400 then c3 = c3 + 1',
  '  elseif status < 500 then c4 = c4 + 1 else c5 = c5 + 1 end',
  'end',
].join('\n');

// Threads are kept by `setup` so that `done` can read what each counted.
const DONE = `
local threads = {}
function setup(thread) table.insert(threads, thread) end
function done(summary, latency, requests)
  local e = summary.errors
  local counted = ""
  if threads[1] and threads[1]:get("c2") ~= nil then
    local c = {0, 0, 0, 0}
    for _, t in ipairs(threads) do
      c[1] = c[1] + t:get("c2"); c[2] = c[2] + t:get("c3")
      c[3] = c[3] + t:get("c4"); c[4] = c[4] + t:get("c5")
    end
    counted = string.format(',"statuses":{"2xx":%d,"3xx":%d,"4xx":%d,"5xx":%d}', c[1], c[2], c[3], c[4])
  end
  io.write(string.format(
    '\\nWRK-JSON {"requests":%.0f,"durationUs":%.0f,"bytes":%.0f,"errors":%.0f,"failedStatus":%.0f,' ..
    '"p50Us":%.0f,"p99Us":%.0f,"maxUs":%.0f%s}\\n',
    summary.requests, summary.duration, summary.bytes, e.connect + e.read + e.write + e.timeout,
    e.status, latency:percentile(50), latency:percentile(99), latency.max, counted))
end
`;

async function runWrk(
  run: WrkRun,
  script: string,
  urlPath: string,
  headerArgs: string[],
): Promise<WrkSummary> {
  ensureWrk();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-bench-wrk-'));
  const scriptFile = path.join(dir, 'load.lua');
  fs.writeFileSync(scriptFile, script);
  const args = [
    '-t',
    String(THREADS),
    '-c',
    String(run.connections),
    '-d',
    `${run.durationSeconds}s`,
    '--timeout',
    `${TIMEOUT_SECONDS}s`,
    '-s',
    scriptFile,
    ...headerArgs,
    `${run.origin}${urlPath}`,
  ];
  try {
    const output = await runChild(run.cpu === undefined ? ['wrk', ...args] : taskset(run.cpu, args));
    const line = output.split('\n').find((l) => l.startsWith('WRK-JSON '));
    if (!line) throw new Error(`wrk printed no summary:\n${output}`);
    const raw = JSON.parse(line.slice('WRK-JSON '.length)) as {
      requests: number;
      durationUs: number;
      bytes: number;
      errors: number;
      failedStatus: number;
      p50Us: number;
      p99Us: number;
      maxUs: number;
      statuses?: WrkSummary['statuses'];
    };
    return {
      requests: raw.requests,
      durationSeconds: raw.durationUs / 1e6,
      bytes: raw.bytes,
      errors: raw.errors,
      failedStatus: raw.failedStatus,
      p50: raw.p50Us / 1000,
      p99: raw.p99Us / 1000,
      max: raw.maxUs / 1000,
      ...(raw.statuses ? { statuses: raw.statuses } : {}),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function taskset(cpu: number, args: string[]): string[] {
  return ['taskset', '--cpu-list', String(cpu), 'wrk', ...args];
}

/** A Lua string literal; the paths and header values of the bench are ASCII. */
export function luaString(text: string): string {
  if (!/^[\x20-\x7e]*$/.test(text)) throw new Error(`wrk: not printable ASCII: ${text}`);
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function luaTable(fields: Record<string, string>): string {
  return `{${Object.entries(fields)
    .map(([name, value]) => `[${luaString(name)}]=${luaString(value)}`)
    .join(',')}}`;
}

function runChild([command, ...args]: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command!, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`wrk exited with ${code}:\n${stdout}${stderr}`));
    });
  });
}
