import pino, { type Logger } from 'pino';
import type { LogLevel } from './config.ts';

/** Where logs go and how much of them may wait in memory for it; tests choose their own. */
export interface LogSink {
  fd: number;
  bufferBytes: number;
  /** How often dropped lines are reported, if any were. */
  reportEveryMs: number;
}

// Lines wait in memory while stdout is slower than the server (a flood of requests, a slow
// disk or pipe). Past this bound they are dropped and counted rather than kept without end:
// unbounded, a flood grew the process by hundreds of megabytes of pending log lines.
const STDOUT: LogSink = { fd: 1, bufferBytes: 16 * 1024 * 1024, reportEveryMs: 10_000 };

/** Structured JSON logs; pretty when a person is watching a terminal. */
export function createLogger(level: LogLevel, sink: LogSink = STDOUT): Logger {
  if (sink === STDOUT && process.stdout.isTTY) {
    return pino({ level, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss' } } });
  }
  const destination = pino.destination({ dest: sink.fd, sync: false, maxLength: sink.bufferBytes });
  const logger = pino({ level }, destination);
  let dropped = 0;
  destination.on('drop', () => {
    dropped++;
  });
  setInterval(() => {
    if (dropped === 0) return;
    logger.warn({ dropped }, 'log lines dropped: the log output could not keep up');
    dropped = 0;
  }, sink.reportEveryMs).unref();
  return logger;
}
