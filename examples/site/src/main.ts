import http from 'node:http';
import { readSiteConfig } from './config.ts';
import { createSite } from './site.ts';

/** Starts the example blog on HOST and PORT (default 127.0.0.1:3000) and returns the server. */
export async function startSite(config = readSiteConfig()): Promise<http.Server> {
  const site = createSite(config);
  const server = http.createServer((request, response) => void site.handle(request, response));
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  return server;
}

if (import.meta.main) {
  const config = readSiteConfig();
  await startSite(config);
  process.stdout.write(`Example site: ${config.origin}/blog\n`);
}
