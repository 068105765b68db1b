import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './server-process.ts';

/** Debian's nginx (`apt-get install nginx`). */
const NGINX = '/usr/sbin/nginx';

/** The site configuration the README tells operators to install. */
export const NGINX_SITE = fileURLToPath(new URL('../../../../deploy/nginx/folio.conf', import.meta.url));

/**
 * True when the nginx tests cannot run here. In CI a missing nginx is a failure, never a silent
 * skip; elsewhere the suite says loudly that it skipped.
 */
export function nginxMissing(suite: string): boolean {
  if (fs.existsSync(NGINX)) return false;
  if (process.env.CI === 'true') throw new Error(`nginx is required in CI but ${NGINX} is missing`);
  process.stderr.write(`\n!!! ${NGINX} is missing: ${suite} is SKIPPED (apt-get install nginx)\n\n`);
  return true;
}

export interface NginxProcess {
  port: number;
  /** The error log so far, for failure messages. */
  errors: () => string;
  stop: () => Promise<void>;
}

// An unprivileged account for nginx when the tests run as root (containers, CI): Debian's nobody.
const NOBODY = 65534;

/**
 * Starts nginx as an unprivileged foreground process on a free port of 127.0.0.1, serving the
 * repository's site file with its upstream pointed at `upstreamPort`. Everything it writes (pid,
 * logs, request bodies) goes to a temporary directory, removed by `stop`.
 */
export async function startNginx(upstreamPort: number): Promise<NginxProcess> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-nginx-'));
  const port = await freePort();
  fs.writeFileSync(path.join(dir, 'folio.conf'), siteFor(port, upstreamPort));
  fs.writeFileSync(path.join(dir, 'nginx.conf'), mainConfig(dir));
  const root = process.getuid?.() === 0;
  if (root) fs.chownSync(dir, NOBODY, NOBODY);
  const child = spawn(
    NGINX,
    ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'error.log')],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(root ? { uid: NOBODY, gid: NOBODY } : {}),
    },
  );
  let output = '';
  child.stdout!.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const errors = () => {
    const log = fs.existsSync(path.join(dir, 'error.log'))
      ? fs.readFileSync(path.join(dir, 'error.log'), 'utf8')
      : '';
    return `${output}${log}`;
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGQUIT');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForPort(port, child);
  } catch (error) {
    const log = errors();
    await stop();
    throw new Error(`${(error as Error).message}\n${log}`);
  }
  return { port, errors, stop };
}

/** The repository's site file with only its addresses changed; a missing line is an error. */
function siteFor(port: number, upstreamPort: number): string {
  const replacements: Array<[RegExp, string]> = [
    [/^(\s*)listen 80;$/m, `$1listen 127.0.0.1:${port};`],
    [/^\s*listen \[::\]:80;\n/m, ''],
    [/^(\s*)server 127\.0\.0\.1:8080;$/m, `$1server 127.0.0.1:${upstreamPort};`],
  ];
  let site = fs.readFileSync(NGINX_SITE, 'utf8');
  for (const [pattern, replacement] of replacements) {
    if (!pattern.test(site)) throw new Error(`${NGINX_SITE} no longer has a line matching ${pattern}`);
    site = site.replace(pattern, replacement);
  }
  return site;
}

// What Debian's /etc/nginx/nginx.conf sets around a site (gzip on included), with every path
// that nginx writes moved into `dir`.
function mainConfig(dir: string): string {
  return `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  gzip on;
  include ${dir}/folio.conf;
}
`;
}

async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error('nginx did not start listening');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
