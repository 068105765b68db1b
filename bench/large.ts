import http from 'node:http';
import type { ArticleInput } from '@folio/schema';
import { openDatabase } from '../packages/server/src/db/connect.ts';
import { migrateToLatest } from '../packages/server/src/db/migrate.ts';
import { upsertArticle } from '../packages/server/src/services/articles.ts';
import { createContentKey } from '../packages/server/src/services/content-keys.ts';
import { saveDraft } from '../packages/server/src/services/drafts.ts';
import { createProject } from '../packages/server/src/services/projects.ts';
import { stop } from '../packages/server/src/test/server-process.ts';
import { ADMIN_TOKEN, startFolio } from './folio-server.ts';
import { readRssKb } from './load.ts';
import { prepareStore } from './stores.ts';

/** How fast each reader takes an answer in: slower than the server sends, so answers queue. */
const READ_BYTES_PER_SECOND = 8 * 1024 * 1024;

export interface LargeReport {
  database: string;
  articles: number;
  /** One article's ingest body, in bytes. */
  articleBytes: number;
  rows: LargeRow[];
}

interface LargeRow {
  list: string;
  readers: number;
  complete: number;
  /** Answers of 503 `unavailable`: no turn to have an answer made came in time (`http/answer-slots.ts`). */
  turnedAway: number;
  /** Answers that were neither: another status, a reset, a body that does not parse. */
  failed: number;
  mbPerAnswer: number;
  seconds: number;
  rssMb: { before: number; peak: number; after: number };
}

/**
 * An article near the 1 MiB body limit made of the smallest objects the block schema takes, the
 * costliest shape to hold parsed: 700 paragraphs of 100 two-letter runs.
 */
function largeArticle(i: number, title: string): ArticleInput {
  const paragraph = {
    type: 'paragraph' as const,
    content: Array.from({ length: 100 }, () => ({ text: 'ab' })),
  };
  return { slug: `large-${i}`, title, blocks: Array.from({ length: 700 }, () => paragraph) };
}

/**
 * The large-articles run: `articles` published articles near the body limit, each with a draft
 * as large, written through the server's services; then a Folio server as `npm start` runs it
 * (a heap limit of 512 MB), and for each list (the management list, the delivery list for a
 * content and a preview key, the changes feed) `readers` clients at once, each asking for a
 * different page size from 100 down and reading at `READ_BYTES_PER_SECOND`. RSS is VmRSS of the
 * server before the readers, at its peak while they read and 2 s after.
 */
export async function benchLarge(options: {
  databaseUrl: string | undefined;
  articles: number;
  readers: number;
}): Promise<LargeReport> {
  const store = await prepareStore(options.databaseUrl);
  try {
    const { db, dialect } = await openDatabase({ databaseUrl: store.databaseUrl, dataDir: store.dataDir });
    const deps = { db, now: Date.now };
    let keys: { content: string; preview: string };
    let projectId: string;
    try {
      await migrateToLatest(db, dialect);
      projectId = (await createProject(deps, { name: 'large' })).id;
      for (let i = 0; i < options.articles; i++) {
        await upsertArticle(deps, projectId, `a${i}`, {
          ...largeArticle(i, `Article ${i}`),
          published: true,
        });
        await saveDraft(deps, projectId, `a${i}`, largeArticle(i, `Draft ${i}`));
      }
      keys = {
        content: (await createContentKey(deps, projectId, 'content', 'content')).key,
        preview: (await createContentKey(deps, projectId, 'preview', 'preview')).key,
      };
    } finally {
      await db.destroy();
    }
    const folio = await startFolio(store, {});
    try {
      const pid = folio.server.child.pid!;
      const content = `/api/v1/projects/${projectId}/content`;
      const lists: Array<[string, string, string]> = [
        ['management list', `/admin/v1/projects/${projectId}/articles`, ADMIN_TOKEN],
        ['delivery list, content key', content, keys.content],
        ['delivery list, preview key', content, keys.preview],
        ['changes feed, content key', `${content}/changes`, keys.content],
      ];
      const rows: LargeRow[] = [];
      for (const [list, path, token] of lists) {
        const before = readRssKb(pid);
        let peak = before;
        const sampler = setInterval(() => {
          peak = Math.max(peak, readRssKb(pid));
        }, 50);
        const started = performance.now();
        const answers = await Promise.all(
          Array.from({ length: options.readers }, (_, i) =>
            readSlowly(`${folio.origin}${path}?limit=${100 - i}`, token),
          ),
        );
        const seconds = (performance.now() - started) / 1000;
        clearInterval(sampler);
        await new Promise((resolve) => setTimeout(resolve, 2000));
        const complete = answers.filter((answer) => typeof answer === 'number');
        const turnedAway = answers.filter((answer) => answer === 'turned away').length;
        const bytes = complete.reduce((sum, answer) => sum + answer, 0);
        rows.push({
          list,
          readers: options.readers,
          complete: complete.length,
          turnedAway,
          failed: answers.length - complete.length - turnedAway,
          mbPerAnswer: complete.length === 0 ? 0 : bytes / complete.length / 1e6,
          seconds,
          rssMb: { before: before / 1024, peak: peak / 1024, after: readRssKb(pid) / 1024 },
        });
      }
      const articleBytes = Buffer.byteLength(JSON.stringify(largeArticle(0, 'Article 0')));
      return { database: store.name, articles: options.articles, articleBytes, rows };
    } finally {
      await stop(folio.server);
    }
  } finally {
    await store.drop();
  }
}

/**
 * The answer's size when it was a whole 200 in the contract's envelope; `turned away` for a 503
 * `unavailable`; undefined otherwise. Only its ends are kept: thirty-two answers of 100 MB would
 * not fit here either.
 */
function readSlowly(url: string, token: string): Promise<number | 'turned away' | undefined> {
  return new Promise((resolve) => {
    const headers = { authorization: `Bearer ${token}` };
    const request = http.get(url, { headers, agent: false }, (response) => {
      let size = 0;
      let head = '';
      let tail = '';
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (head.length < 64) head += chunk.subarray(0, 64).toString('latin1');
        tail = (tail + chunk.subarray(-32).toString('latin1')).slice(-32);
        response.pause();
        setTimeout(() => response.resume(), (chunk.length / READ_BYTES_PER_SECOND) * 1000);
      });
      response.on('end', () => {
        const whole =
          response.statusCode === 200 && head.startsWith('{"success":true,') && tail.endsWith('}');
        const busy =
          response.statusCode === 503 && head.startsWith('{"success":false,"error":{"code":"unavailable"');
        resolve(whole && response.complete ? size : busy ? 'turned away' : undefined);
      });
      response.on('error', () => resolve(undefined));
    });
    request.on('error', () => resolve(undefined));
  });
}

/** The report as a Markdown table. */
export function largeText(reports: LargeReport[]): string {
  const lines = [
    '| database | list | readers at once | whole answers | turned away (503) | failed | MB per answer | seconds | RSS before | RSS peak | RSS after |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const report of reports) {
    for (const row of report.rows) {
      const mb = (value: number) => `${value.toFixed(0)} MB`;
      lines.push(
        `| ${report.database} | ${row.list} | ${row.readers} | ${row.complete} | ${row.turnedAway} | ${row.failed} | ${row.mbPerAnswer.toFixed(1)} | ${row.seconds.toFixed(1)} | ${mb(row.rssMb.before)} | ${mb(row.rssMb.peak)} | ${mb(row.rssMb.after)} |`,
      );
    }
  }
  return lines.join('\n');
}
