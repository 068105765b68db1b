// Rows per multi-row statement: a dozen columns each stays far below SQLite's 32,766 parameters.
const ROWS_PER_STATEMENT = 500;

/** `rows` in slices that one statement can take. */
export function* chunks<T>(rows: readonly T[]): Generator<T[]> {
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    yield rows.slice(start, start + ROWS_PER_STATEMENT);
  }
}
