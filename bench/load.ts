import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { ADMIN_TOKEN } from './folio-server.ts';
import { wrkRequests } from './wrk.ts';

/** One load run against one server: what wrk saw, the server's CPU and its peak RSS. */
export interface LoadResult {
  requestsPerSecond: number;
  /** Latency percentiles, ms. */
  p50: number;
  p99: number;
  /** Peak VmRSS of the server process during the run, MiB. */
  rssMb: number;
  /**
   * CPU time the server process spent per answer, µs: what an answer costs the server, which
   * moves far less than req/s with what else the shared cores are doing.
   */
  cpuUsPerAnswer: number;
  /** Bytes wrk read per answer, headers included: tells a 304 run from a 200 one. */
  bytesPerAnswer: number;
  /** Answers with a status below 400 / all answers; errors are connection errors and timeouts. */
  expected: number;
  total: number;
  errors: number;
  /**
   * The server's event-loop delay during the run, ms (p99 and max of prom-client's
   * `monitorEventLoopDelay` histogram, read from `/metrics`): Folio only, NaN for the bare server.
   */
  loopP99Ms: number;
  loopMaxMs: number;
  /**
   * Folio only: delivery requests its fast path left to the full path during the run, by reason
   * (`folio_fast_path_refusals_total`); a cached row should have none but its first.
   */
  refusals: Record<string, number>;
  /**
   * Folio only: its garbage collections during the run (prom-client's `nodejs_gc_duration_seconds`):
   * scavenges, their mean pause in ms, and major collections. A process whose scavenges take
   * milliseconds answers at a fraction of its usual rate (BENCHMARKS.md, "Delivery").
   */
  gc: { scavenges: number; scavengeMs: number; majors: number } | undefined;
}

/** A request to repeat (cached) or a list of requests to cycle through (cold). */
export interface LoadPlan {
  requests: Array<{ path: string; headers: Record<string, string> }>;
  /** The status every answer must have: 200, or 304 for the conditional case. */
  status: 200 | 304;
}

/**
 * Loads `origin` with wrk for `durationSeconds`, sampling the VmRSS of `serverPid` meanwhile and
 * reading its CPU time from /proc before and after. With `metrics`, the server is Folio: its
 * event-loop delay histogram is reset by a scrape of `/metrics` before the run and read by one
 * after it.
 */
export async function runLoad(
  origin: string,
  serverPid: number,
  plan: LoadPlan,
  options: { connections: number; durationSeconds: number; loadCpu?: number; metrics?: boolean },
): Promise<LoadResult> {
  const before = options.metrics ? await readLoopDelay(origin) : undefined;
  let peakKb = 0;
  const sample = () => {
    peakKb = Math.max(peakKb, readRssKb(serverPid));
  };
  sample();
  const sampler = setInterval(sample, 50);
  const cpuBefore = readCpuMs(serverPid);
  try {
    const result = await wrkRequests(
      {
        origin,
        connections: options.connections,
        durationSeconds: options.durationSeconds,
        ...(options.loadCpu === undefined ? {} : { cpu: options.loadCpu }),
      },
      plan.requests,
    );
    const cpuMs = readCpuMs(serverPid) - cpuBefore;
    const loop = options.metrics ? await readLoopDelay(origin) : undefined;
    const refusals: Record<string, number> = {};
    for (const [reason, count] of Object.entries(loop?.refusals ?? {})) {
      const during = count - (before?.refusals[reason] ?? 0);
      if (during > 0) refusals[reason] = during;
    }
    const total = result.requests;
    return {
      requestsPerSecond: total / result.durationSeconds,
      p50: result.p50,
      p99: result.p99,
      rssMb: peakKb / 1024,
      cpuUsPerAnswer: total > 0 ? (cpuMs * 1000) / total : 0,
      bytesPerAnswer: total > 0 ? result.bytes / total : 0,
      expected: total - result.failedStatus,
      total,
      errors: result.errors,
      loopP99Ms: loop?.p99Ms ?? Number.NaN,
      loopMaxMs: loop?.maxMs ?? Number.NaN,
      refusals,
      gc:
        loop && before
          ? {
              scavenges: loop.gc.minorCount - before.gc.minorCount,
              scavengeMs:
                loop.gc.minorCount > before.gc.minorCount
                  ? ((loop.gc.minorSeconds - before.gc.minorSeconds) * 1000) /
                    (loop.gc.minorCount - before.gc.minorCount)
                  : 0,
              majors: loop.gc.majorCount - before.gc.majorCount,
            }
          : undefined,
    };
  } finally {
    clearInterval(sampler);
  }
}

/**
 * Folio's event-loop delay since the last scrape, ms: prom-client's default metrics read a
 * `monitorEventLoopDelay` histogram (10 ms resolution) and reset it on every scrape.
 */
export async function readLoopDelay(origin: string): Promise<{
  p99Ms: number;
  maxMs: number;
  refusals: Record<string, number>;
  gc: { minorCount: number; minorSeconds: number; majorCount: number };
}> {
  const response = await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const text = await response.text();
  if (!response.ok) throw new Error(`GET /metrics answered ${response.status}: ${text}`);
  const gauge = (name: string) => {
    const match = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
    return match ? Number(match[1]) * 1000 : Number.NaN;
  };
  const refusals: Record<string, number> = {};
  for (const match of text.matchAll(/^folio_fast_path_refusals_total\{reason="(\w+)"\} (\S+)$/gm)) {
    refusals[match[1]!] = Number(match[2]);
  }
  const gcFigure = (figure: 'count' | 'sum', kind: string) =>
    Number(
      new RegExp(`^nodejs_gc_duration_seconds_${figure}\\{kind="${kind}"\\} (\\S+)$`, 'm').exec(text)?.[1] ??
        0,
    );
  return {
    p99Ms: gauge('nodejs_eventloop_lag_p99_seconds'),
    maxMs: gauge('nodejs_eventloop_lag_max_seconds'),
    refusals,
    gc: {
      minorCount: gcFigure('count', 'minor'),
      minorSeconds: gcFigure('sum', 'minor'),
      majorCount: gcFigure('count', 'major'),
    },
  };
}

/**
 * Pins every thread of `pid` to one CPU (`taskset`, util-linux), so the servers and the load
 * generator stop trading cores from run to run, and Folio and the bare server are measured on
 * the same CPU (BENCHMARKS.md, "Delivery", explains why that matters here).
 */
export function pinToCpu(pid: number, cpu: number): void {
  execFileSync('taskset', ['--all-tasks', '--pid', '--cpu-list', String(cpu), String(pid)], {
    stdio: 'ignore',
  });
}

/**
 * The time one fixed loop of JavaScript takes on each CPU, ms (median of 3, pinned with
 * taskset); undefined where taskset is missing. The vCPUs of a shared virtual machine need not
 * run at the same speed, nor at the same speed from one minute to the next.
 */
export function timeCpus(): number[] | undefined {
  const loop =
    'const t=performance.now();let x=0;for(let i=0;i<1e8;i++)x+=i%7;console.log(performance.now()-t)';
  try {
    return Array.from({ length: os.availableParallelism() }, (_, cpu) => {
      const ms = [0, 1, 2].map(() =>
        Number(
          execFileSync('taskset', ['--cpu-list', String(cpu), process.execPath, '-e', loop], {
            encoding: 'utf8',
          }),
        ),
      );
      return ms.sort((a, b) => a - b)[1]!;
    });
  } catch {
    return undefined;
  }
}

/**
 * Where a pinned run puts the servers and the load generator: the servers on the slower CPU, so
 * that they, not wrk, are what a run saturates; both servers on the same one, so that Folio and
 * the bare server are measured alike.
 */
export function chooseCpus(speeds: number[] | undefined): { server: number; load: number } {
  if (!speeds || speeds.length < 2) return { server: 0, load: 1 };
  const slower = speeds[0]! >= speeds[1]! ? 0 : 1;
  return { server: slower, load: 1 - slower };
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
