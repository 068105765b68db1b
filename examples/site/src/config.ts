/** The example site's settings, from the environment. */
export interface SiteConfig {
  folioUrl: string;
  projectId: string;
  contentKey: string;
  webhookSecret: string | undefined;
  /** The site's own origin: canonical URLs and the sitemap are built on it. */
  origin: string;
  port: number;
  /** The address to listen on: this machine only, unless HOST says otherwise. */
  host: string;
  siteName: string;
}

export function readSiteConfig(env: Record<string, string | undefined> = process.env): SiteConfig {
  const missing = ['FOLIO_URL', 'FOLIO_PROJECT_ID', 'FOLIO_CONTENT_KEY'].filter((name) => !env[name]);
  if (missing.length > 0) {
    throw new Error(`Set ${missing.join(', ')} (see examples/site/README.md), or run \`npm run example\`.`);
  }
  const port = Number(env.PORT ?? 3000);
  return {
    folioUrl: env.FOLIO_URL!,
    projectId: env.FOLIO_PROJECT_ID!,
    contentKey: env.FOLIO_CONTENT_KEY!,
    webhookSecret: env.FOLIO_WEBHOOK_SECRET || undefined,
    origin: (env.SITE_ORIGIN ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    port,
    // As Folio's own HOST: a site on a developer's machine is not reachable from the network
    // until they ask for it (`0.0.0.0`, or a reverse proxy in front).
    host: env.HOST?.trim() || '127.0.0.1',
    siteName: env.SITE_NAME ?? 'Fernhill Notes',
  };
}
