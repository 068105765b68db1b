import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { serverFlags } from '../../bin/launch.js';

/** How `npm start` runs a server's Node (see `bin/launch.js`), without the launcher's own process. */
export const SERVER_NODE_FLAGS: string[] = serverFlags();

/**
 * Fills the compile cache as `npm install` does, for a benchmark run after sources changed: its
 * servers then start as an installed server does, without the TypeScript stripper.
 */
export function primeCompileCache(): void {
  execFileSync(process.execPath, [...SERVER_NODE_FLAGS, PRIME]);
}
const PRIME = fileURLToPath(new URL('../compile-cache-prime.ts', import.meta.url));

/** The server's entry file, run as a real process by the process tests and the benchmark. */
export const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));

/** A server child process started by `startServer`. */
export interface ServerProcess {
  child: ChildProcess;
  /** Everything the process printed so far, stdout and stderr. */
  output: () => string;
  /** Resolves with the exit code (null when a signal ended it). */
  exited: Promise<number | null>;
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface ServerOptions {
  /**
   * Files the process writes cannot grow past this many KiB (`ulimit -f`): a write past it fails
   * as it would on a full disk, without a disk to fill.
   */
  fileSizeLimitKiB?: number;
  /** Node flags after the server's own, which they override (a smaller heap). */
  nodeFlags?: string[];
}

/** Starts `main.ts` as a real process and waits until it prints that it is running. */
export async function startServer(
  env: Record<string, string>,
  options: ServerOptions = {},
): Promise<ServerProcess> {
  const command = [process.execPath, ...SERVER_NODE_FLAGS, ...(options.nodeFlags ?? []), MAIN];
  if (options.fileSizeLimitKiB !== undefined) {
    command.unshift('bash', '-c', `ulimit -f ${options.fileSizeLimitKiB} && exec "$@"`, 'bash');
  }
  const child = spawn(command[0]!, command.slice(1), {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 20_000;
  while (!output.includes('Folio is running')) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { child, output: () => output, exited };
}

/** SIGTERM, then the exit code. */
export async function stop(server: ServerProcess): Promise<number | null> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGTERM');
  return server.exited;
}

/** SIGKILL: the process gets no chance to finish anything. */
export async function kill(server: ServerProcess): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
  await server.exited;
}

/** What `requestJson` answers: the status, the headers and the parsed JSON body, if any. */
export interface JsonAnswer {
  status: number;
  headers: Headers;
  body: { success: boolean; data?: unknown; error?: { code: string; message?: string } } | undefined;
}

/** A request with a bearer token (and a JSON body) to a server on 127.0.0.1:`port`. */
export async function requestJson(
  port: number,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<JsonAnswer> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}
