/** The logging surface core needs; a pino logger satisfies it. */
export interface Logger {
  debug(obj: unknown, msg?: string): void;
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

/**
 * What `console` offers (no `child`, free-form arguments): accepted wherever a logger is, so that
 * `logger: console` just works; `toLogger` adapts it.
 */
export interface ConsoleLike {
  error(...data: unknown[]): void;
  warn(...data: unknown[]): void;
  info?(...data: unknown[]): void;
  debug?(...data: unknown[]): void;
}

/** A structured (pino-compatible) logger, or a console-like object to adapt. */
export type LoggerLike = Logger | ConsoleLike;

const noop = () => {};

/** A logger that drops everything: pass it to silence even the default error log. */
export const silentLogger: Logger = {
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
  child: () => silentLogger,
};
