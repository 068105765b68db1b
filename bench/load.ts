import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SOURCE_FLAGS } from '../packages/server/bin/launch.js';
import type { CyclingSpec } from './cycling-load.ts';

const AUTOCANNON = fileURLToPath(new URL('../node_modules/.bin/autocannon', import.meta.url));
const CYCLING = fileURLToPath(new URL('./cycling-load.ts', import.meta.url));
// A slow answer is a long latency, not an error.
export const TIMEOUT_SECONDS = 30;

/** One load run against one server: what autocannon saw and the server's peak RSS. */
export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** Peak VmRSS of the server process during the run, MiB. */
  rssMb: number;
  /**
   * CPU time the server process spent per answer, µs: what an answer costs the server, which
   * moves far less than req/s with what else the shared cores are doing.
   */
  cpuUsPerAnswer: number;
  /** Answers with the expected status / all answers; errors are connection errors and timeouts. */
  expected: number;
  total: number;
  errors: number;
}

/** A request to repeat (cached) or a list of requests to cycle through (cold). */
export interface LoadPlan {
  requests: Array<{ path: string; headers: Record<string, string> }>;
  /** The status every answer must have: 200, or 304 for the conditional case. */
  status: 200 | 304;
}

/**
 * Loads `origin` with autocannon in a separate process for `durationSeconds`, sampling the
 * VmRSS of `serverPid` meanwhile. One request: autocannon's CLI with `--json`; several: the
 * cycling runner, each request taking the next one of the list.
 */
export async function runLoad(
  origin: string,
  serverPid: number,
  plan: LoadPlan,
  options: { connections: number; durationSeconds: number; loadCpu?: number },
): Promise<LoadResult> {
  let args: string[];
  let specFile: string | undefined;
  if (plan.requests.length === 1) {
    const [{ path: requestPath, headers }] = plan.requests as [LoadPlan['requests'][0]];
    args = [
      AUTOCANNON,
      '--json',
      '-n',
      '-c',
      String(options.connections),
      '-d',
      String(options.durationSeconds),
      '-t',
      String(TIMEOUT_SECONDS),
      ...Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}=${value}`]),
      `${origin}${requestPath}`,
    ];
  } else {
    specFile = path.join(os.tmpdir(), `folio-bench-load-${process.pid}-${Date.now()}.json`);
    const spec: CyclingSpec = {
      origin,
      connections: options.connections,
      durationSeconds: options.durationSeconds,
      requests: plan.requests,
    };
    fs.writeFileSync(specFile, JSON.stringify(spec));
    args = [...SOURCE_FLAGS, CYCLING, specFile];
  }
  let peakKb = 0;
  const sample = () => {
    peakKb = Math.max(peakKb, readRssKb(serverPid));
  };
  sample();
  const sampler = setInterval(sample, 50);
  const cpuBefore = readCpuMs(serverPid);
  try {
    const output = await runChild(args, options.loadCpu);
    const cpuMs = readCpuMs(serverPid) - cpuBefore;
    const result = JSON.parse(output.trim().split('\n').at(-1)!) as AutocannonResult;
    const expected = plan.status === 200 ? result['2xx'] : result['3xx'];
    const total = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
    return {
      requestsPerSecond: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      rssMb: peakKb / 1024,
      cpuUsPerAnswer: total > 0 ? (cpuMs * 1000) / total : 0,
      expected,
      total,
      errors: result.errors + result.timeouts,
    };
  } finally {
    clearInterval(sampler);
    if (specFile) fs.rmSync(specFile, { force: true });
  }
}

interface AutocannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  '1xx': number;
  '2xx': number;
  '3xx': number;
  '4xx': number;
  '5xx': number;
}

/**
 * Pins every thread of `pid` to one CPU (`taskset`, util-linux), so the servers and the load
 * generator stop trading cores from run to run: the spread of a ratio falls from about ±0.1
 * to ±0.02 on two shared cores.
 */
export function pinToCpu(pid: number, cpu: number): void {
  execFileSync('taskset', ['--all-tasks', '--pid', '--cpu-list', String(cpu), String(pid)], {
    stdio: 'ignore',
  });
}

/** User and system CPU time of a process so far, ms, from /proc (0 when unavailable). */
function readCpuMs(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime, fields 14 and 15 of stat(5), in clock ticks of 10 ms.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/** VmRSS of a process in KiB, from /proc (0 when unavailable). */
export function readRssKb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

function runChild(args: string[], cpu: number | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const [command, commandArgs] =
      cpu === undefined
        ? [process.execPath, args]
        : ['taskset', ['--cpu-list', String(cpu), process.execPath, ...args]];
    const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
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
      else reject(new Error(`load generator exited with ${code}:\n${stderr}`));
    });
  });
}
