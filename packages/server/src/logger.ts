import pino, { type Logger } from 'pino';

/** Structured JSON logs; pretty when a person is watching a terminal. */
export function createLogger(level = process.env.LOG_LEVEL ?? 'info'): Logger {
  if (process.stdout.isTTY) {
    return pino({ level, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss' } } });
  }
  return pino({ level });
}
