import pg from 'pg';

/**
 * A static site's first build, two ways, on a server with no response cache: following the
 * changes feed from no cursor to `hasMore: false`, and paging the list endpoint to its end, 100
 * articles a request either way, one request at a time. Median of `runs` each, alternating.
 */
export async function timeInitialSync(
  origin: string,
  base: string,
  headers: Record<string, string>,
  runs = 3,
): Promise<{ syncMs: number; listMs: number; syncRequests: number; listRequests: number }> {
  const get = async (path: string) => {
    const response = await fetch(`${origin}${path}`, {
      headers: { ...headers, 'accept-encoding': 'identity' },
    });
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
    return (await response.json()) as { data: unknown; pagination?: { hasNext: boolean } };
  };
  const sync = async () => {
    let requests = 0;
    let cursor: string | undefined;
    for (;;) {
      requests++;
      const page = (await get(`${base}/changes?limit=100${cursor ? `&since=${cursor}` : ''}`)).data as {
        cursor: string;
        hasMore: boolean;
      };
      cursor = page.cursor;
      if (!page.hasMore) return requests;
    }
  };
  const list = async () => {
    for (let page = 1; ; page++) {
      if (!(await get(`${base}?page=${page}&limit=100`)).pagination!.hasNext) return page;
    }
  };
  const syncTimes: number[] = [];
  const listTimes: number[] = [];
  let syncRequests = 0;
  let listRequests = 0;
  for (let run = 0; run < runs; run++) {
    let started = performance.now();
    syncRequests = await sync();
    syncTimes.push(performance.now() - started);
    started = performance.now();
    listRequests = await list();
    listTimes.push(performance.now() - started);
  }
  const middle = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  return { syncMs: middle(syncTimes), listMs: middle(listTimes), syncRequests, listRequests };
}

/**
 * What the publishing scheduler costs a PostgreSQL database while nothing is due, over
 * `seconds` with `servers` idle server processes on it: the polls per second of each (a poll
 * probes the two partial indexes of scheduled articles once) and the sequential scans of the
 * articles table meanwhile (0 when every poll was an index probe). PostgreSQL publishes a
 * backend's counters about once a second, so the window is long.
 */
export async function schedulerAtIdle(
  databaseUrl: string,
  servers: number,
  seconds = 20,
): Promise<{ pollsPerSecond: number; seqScansPerSecond: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const counters = async () => {
      await client.query('select pg_stat_clear_snapshot()');
      const { rows } = await client.query<{ probes: string; seq: string }>(
        `select
           (select coalesce(sum(idx_scan), 0) from pg_stat_user_indexes
             where indexrelname in ('articles_publish_at', 'articles_unpublish_at')) as probes,
           (select coalesce(sum(seq_scan), 0) from pg_stat_user_tables where relname = 'articles') as seq`,
      );
      return { probes: Number(rows[0]!.probes), seq: Number(rows[0]!.seq) };
    };
    const before = await counters();
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const after = await counters();
    return {
      pollsPerSecond: (after.probes - before.probes) / 2 / seconds / servers,
      seqScansPerSecond: (after.seq - before.seq) / seconds,
    };
  } finally {
    await client.end();
  }
}
