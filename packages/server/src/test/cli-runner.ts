import { Writable } from 'node:stream';
import { runCli } from '../cli/run.ts';
import type { TestDatabase } from './databases.ts';

/** What one in-process `folio` run printed and answered. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (for `--json` runs). */
  // biome-ignore lint/suspicious/noExplicitAny: like inject()'s json(), tests check it field by field
  json<T = any>(): T;
}

/** A stream that keeps what is written to it; `isTTY` makes it look like a terminal. */
export function captureStream(isTTY = false): Writable & { text: () => string; isTTY: boolean } {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      text += chunk.toString();
      callback();
    },
  });
  return Object.assign(stream, { text: () => text, isTTY });
}

/** The environment that points the CLI at a test database, as an operator's would. */
export function cliEnv(database: TestDatabase, extra: Record<string, string> = {}): Record<string, string> {
  const { databaseUrl, dataDir } = database.location;
  return databaseUrl ? { DATABASE_URL: databaseUrl, ...extra } : { FOLIO_DATA_DIR: dataDir, ...extra };
}

/** Runs `folio ...argv` in this process with captured output. */
export async function runFolio(
  env: Record<string, string>,
  argv: string[],
  options: { tty?: boolean; cwd?: string } = {},
): Promise<CliRun> {
  const stdout = captureStream();
  const stderr = captureStream(options.tty ?? false);
  const code = await runCli(argv, { env, stdout, stderr, ...(options.cwd ? { cwd: options.cwd } : {}) });
  return {
    code,
    stdout: stdout.text(),
    stderr: stderr.text(),
    json: () => {
      try {
        return JSON.parse(stdout.text());
      } catch {
        throw new Error(`stdout is not JSON (exit ${code}):\n${stdout.text()}\nstderr:\n${stderr.text()}`);
      }
    },
  };
}
