import { createRequire } from 'node:module';
import type { pino as Pino } from 'pino';
import type { Logger } from '../core/logger.js';

/** The levels `--log-level` accepts (pino's). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** One of LOG_LEVELS. */
export type LogLevel = (typeof LOG_LEVELS)[number];

type Method = 'debug' | 'info' | 'warn' | 'error';

/**
 * A logger whose pino is made by `make` at its first line that the level lets through. Loading pino costs a
 * start about 25 ms (its streams, worker threads and assert), and a stdio server often answers its first call
 * before it logs anything.
 */
function deferred(level: LogLevel, make: () => Logger): Logger {
  // pino's order: LOG_LEVELS from the most severe; `silent` (last) writes nothing.
  const threshold = level === 'silent' ? -1 : LOG_LEVELS.indexOf(level);
  let real: Logger | undefined;
  const made = (): Logger => {
    real ??= make();
    return real;
  };
  const line = (method: Method) =>
    LOG_LEVELS.indexOf(method) > threshold
      ? () => {}
      : (obj: unknown, msg?: string): void => made()[method](obj, msg);
  return {
    debug: line('debug'),
    info: line('info'),
    warn: line('warn'),
    error: line('error'),
    child: (bindings) => deferred(level, () => made().child(bindings)),
  };
}

/**
 * The CLI's logger: structured JSON lines on stderr, so stdout stays free for the one line scripts parse
 * ("mcplite listening on ..."). Writes are synchronous so that nothing is lost when the process exits right
 * after logging. Credentials are redacted as a safety net; nothing logs them or request bodies on purpose.
 */
export function createLogger(level: LogLevel): Logger & { level: string } {
  const make = (): Logger => {
    // pino is CommonJS: required where the first line needs it, synchronously, so that the line is not delayed.
    const { pino } = createRequire(import.meta.url)('pino') as { pino: typeof Pino };
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
  };
  return Object.assign(deferred(level, make), { level });
}
