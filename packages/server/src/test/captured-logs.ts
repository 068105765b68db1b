import pino, { type Logger } from 'pino';

/** A logged line as pino writes it: `level` (30 info, 40 warn, 50 error), `msg` and its fields. */
export type LogLine = { level: number; msg: string } & Record<string, unknown>;

/** A logger at every level whose lines a test reads back, parsed, in `lines`. */
export function captureLogs(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino({ level: 'trace' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}
