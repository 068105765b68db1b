/**
 * Lists of articles read and written a run at a time. A page may hold a hundred articles near
 * the body limit: a hundred megabytes of stored text, several times that once parsed, more than
 * a server's heap. So a page's ids and sizes are read first, then its articles in runs of a
 * bounded size, each turned into JSON text and handed on before the next is read; the HTTP layer
 * sends a small answer whole and streams a large one (`http/send-json.ts`).
 */

/** JSON text, whole or in chunks to be sent one after another. */
export type JsonText = string | AsyncIterable<string>;

/** The stored bytes read at a time for one answer (a larger article is read alone). */
export const RUN_BYTES = 1024 * 1024;

/**
 * The stored bytes one write transaction reads at most (schedules coming due, the rewrite after a
 * settings change): more than an answer's run, since each transaction costs a commit, but few
 * enough that a batch of large articles, parsed to be served, fits beside a server's traffic.
 */
export const WRITE_RUN_BYTES = 4 * 1024 * 1024;

/** `rows` in order, in runs whose `bytes` add up to at most `budget`; a larger row runs alone. */
export function* inRuns<T extends { bytes: number | null }>(
  rows: readonly T[],
  budget = RUN_BYTES,
): Generator<T[]> {
  let run: T[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = row.bytes ?? 0;
    if (run.length > 0 && bytes + size > budget) {
      yield run;
      run = [];
      bytes = 0;
    }
    run.push(row);
    bytes += size;
  }
  if (run.length > 0) yield run;
}

/** A JSON array of the items each run gives (JSON texts; undefined for one left out), in chunks. */
export async function* jsonArray(
  runs: AsyncIterable<ReadonlyArray<string | undefined>>,
): AsyncGenerator<string> {
  let first = true;
  yield '[';
  for await (const run of runs) {
    const items = run.filter((item) => item !== undefined);
    if (items.length === 0) continue;
    yield first ? items.join(',') : `,${items.join(',')}`;
    first = false;
  }
  yield ']';
}

/** `text` whole, for an answer built around it: what a test or a small caller wants. */
export async function wholeText(text: JsonText): Promise<string> {
  if (typeof text === 'string') return text;
  let whole = '';
  for await (const chunk of text) whole += chunk;
  return whole;
}
