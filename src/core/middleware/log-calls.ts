import { toMcpLiteError } from '../errors.js';
import type { LogLevelName } from '../log-output.js';
import { stderrLogger, toLogger } from '../log-output.js';
import type { LoggerLike } from '../logger.js';
import type { MaybePromise } from '../maybe-promise.js';
import type { Middleware } from '../operation.js';
import type { Outcome } from '../outcomes.js';

/** Options of `logCalls`. */
export interface LogCallsOptions {
  /**
   * Where the lines go: a pino logger (or any pino-compatible one, or `console`). Default: JSON lines on stderr,
   * pino's shape, at `info`.
   */
  logger?: LoggerLike;
  /**
   * Log the arguments too: `true` for all of them, or the names of the ones that may be written. Default: none
   * (arguments often carry personal data and secrets, so they are redacted unless asked for).
   */
  arguments?: boolean | readonly string[];
  /** The level of a finished operation's line. Errors are logged at `warn`. Default `info`. */
  level?: Exclude<LogLevelName, 'error'>;
  /** Log listings and the other operations too, not only tool calls. Default false. */
  everyOperation?: boolean;
}

const REDACTED = '[redacted]';

/**
 * One log line per tool call (and, with `everyOperation`, per operation): method, tool, binding, caller,
 * outcome or error code, and milliseconds. Arguments are redacted unless `arguments` asks for them.
 */
export function logCalls(options: LogCallsOptions = {}): Middleware {
  const logger = options.logger ? toLogger(options.logger) : stderrLogger('info');
  const level = options.level ?? 'info';
  const allowed = Array.isArray(options.arguments) ? new Set<string>(options.arguments) : undefined;
  const allArguments = options.arguments === true;
  const argumentsOf = (args: Readonly<Record<string, unknown>> | undefined): unknown => {
    if (args === undefined) return undefined;
    if (allArguments) return args;
    const shown: Record<string, unknown> = {};
    for (const key of Object.keys(args)) shown[key] = allowed?.has(key) ? args[key] : REDACTED;
    return shown;
  };
  return (op, next) => {
    if (op.method !== 'tools/call' && !options.everyOperation) return next();
    const started = performance.now();
    const line = (extra: Record<string, unknown>) => ({
      method: op.method,
      ...(op.name !== undefined ? { name: op.name } : {}),
      binding: op.caller.binding,
      ...(op.caller.principal ? { principal: op.caller.principal.id } : {}),
      ...(op.method === 'tools/call' ? { arguments: argumentsOf(op.arguments) } : {}),
      ms: Math.round((performance.now() - started) * 10) / 10,
      ...extra,
    });
    const done = (value: unknown) => {
      const outcome = op.method === 'tools/call' ? (value as Outcome).type : 'ok';
      logger[level](line({ outcome }), 'operation');
      return value;
    };
    const failed = (err: unknown): never => {
      logger.warn(line({ error: toMcpLiteError(err).code }), 'operation failed');
      throw err;
    };
    let result: MaybePromise<unknown>;
    try {
      result = next();
    } catch (err) {
      return failed(err);
    }
    return result instanceof Promise ? result.then(done, failed) : done(result);
  };
}
