import { pino } from 'pino';
import type { Logger } from '../core/logger.js';

/** The levels `--log-level` accepts (pino's). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** One of LOG_LEVELS. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * The CLI's logger: structured JSON lines on stderr, so stdout stays free for the one line scripts parse
 * ("mcplite listening on ..."). Writes are synchronous so that nothing is lost when the process exits right
 * after logging. Credentials are redacted as a safety net; nothing logs them or request bodies on purpose.
 */
export function createLogger(level: LogLevel): Logger & { level: string } {
  return pino(
    {
      name: 'mcplite',
      level,
      base: { pid: process.pid },
      redact: {
        paths: ['token', 'tokens', '*.token', '*.tokens', '*.authorization', 'headers.authorization'],
        censor: '[redacted]',
      },
    },
    pino.destination({ fd: 2, sync: true }),
  );
}
