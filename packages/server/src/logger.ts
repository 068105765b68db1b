import pino, { type Logger } from 'pino';
import type { LogLevel } from './config.ts';

/** Structured JSON logs; pretty when a person is watching a terminal. */
export function createLogger(level: LogLevel): Logger {
  if (process.stdout.isTTY) {
    return pino({ level, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss' } } });
  }
  return pino({ level });
}
