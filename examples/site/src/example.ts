// `npm run example`: Folio (embedded database, demo data) and the example site together.
// It takes what a site developer would collect from the dashboard: the project id, a content
// key and the webhook signing secret, and points the project's webhook at the site.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXAMPLE_DATA_DIR, exampleFolioEnv, examplePorts } from './example-env.ts';
import { startSite } from './main.ts';

const ports = await examplePorts(process.env);
const folioUrl = `http://localhost:${ports.folio}`;
const siteOrigin = `http://localhost:${ports.site}`;
const adminToken = `example-${randomBytes(24).toString('base64url')}`;
// Started as a user starts it, `folio start`, through the launcher that sets Node's flags.
const folioCommand = fileURLToPath(new URL('../../../packages/server/bin/folio.js', import.meta.url));

const folio = spawn(process.execPath, [folioCommand, 'start'], {
  env: exampleFolioEnv(process.env, { port: ports.folio, adminToken }),
  stdio: ['ignore', 'pipe', 'inherit'],
});
const stopAll = () => {
  folio.kill('SIGTERM');
  process.exit(0);
};
process.on('SIGINT', stopAll);
process.on('SIGTERM', stopAll);
folio.on('exit', (code) => {
  process.stderr.write(`Folio exited (${code}).\n`);
  process.exit(code ?? 1);
});

await new Promise<void>((resolve) => {
  let output = '';
  folio.stdout!.on('data', (chunk: Buffer) => {
    output += chunk;
    if (output.includes('Folio is running')) resolve();
  });
});

async function admin<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${folioUrl}/admin/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${adminToken}`,
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await response.json()) as { data: T; error?: { message: string } };
  if (!response.ok) throw new Error(`${method} ${path}: ${json.error?.message}`);
  return json.data;
}

const projects = await admin<Array<{ id: string; name: string }>>('GET', '/projects');
const project = projects.find((p) => p.name === 'Folio demo blog') ?? projects[0];
if (!project) throw new Error('No project found: start once with FOLIO_DEMO=true on an empty database.');
// The dashboard's "Preview on site" opens this route of the site with a preview token.
await admin('PATCH', `/projects/${project.id}`, {
  websiteUrl: siteOrigin,
  articlesPath: '/blog',
  previewUrl: `${siteOrigin}/preview?slug={slug}&token={token}`,
});
// One key for the example site: earlier runs' keys are revoked rather than piling up.
const keys = await admin<Array<{ id: string; name: string }>>('GET', `/projects/${project.id}/keys`);
for (const key of keys.filter((k) => k.name === 'example site')) {
  await admin('DELETE', `/projects/${project.id}/keys/${key.id}`);
}
const { key } = await admin<{ key: string }>('POST', `/projects/${project.id}/keys`, {
  name: 'example site',
});
await admin('PUT', `/projects/${project.id}/webhook`, {
  url: `http://127.0.0.1:${ports.site}/webhooks/folio`,
});
const { secret } = await admin<{ secret: string }>('POST', `/projects/${project.id}/webhook/reveal-secret`);

await startSite({
  folioUrl,
  projectId: project.id,
  contentKey: key,
  webhookSecret: secret,
  origin: siteOrigin,
  port: ports.site,
  // The webhook URL above names 127.0.0.1: the site must answer there.
  host: '127.0.0.1',
  siteName: 'Fernhill Notes',
});

process.stdout.write(`
  Folio:        ${folioUrl}  (admin token for this run: ${adminToken})
  Example site: ${siteOrigin}/blog
  Its data:     ${path.relative(process.cwd(), EXAMPLE_DATA_DIR) || '.'} (apart from npm start's; delete it to start over)

  Edit an article through the management API and reload: the webhook purges the site's cache.
  Save a draft and choose "Preview on site" in the dashboard: it opens ${siteOrigin}/preview.
  Ctrl+C stops both.
`);
