import type { ConsoleLike, Logger, LoggerLike } from './logger.js';

/** The levels a logger made here writes, lowest first. */
export type LogLevelName = 'debug' | 'info' | 'warn' | 'error';

const RANK: Readonly<Record<LogLevelName, number>> = { debug: 0, info: 1, warn: 2, error: 3 };

/**
 * Field names whose values never reach a log: credentials, and promise tokens (whoever reads one can redeem the
 * result while it lives). A safety net: nothing logs them on purpose.
 */
const SECRET_FIELD = /^(tokens?|authorization|cookie|password|secret|api[-_]?key)$/i;

const REDACTED = '[redacted]';

/**
 * The logger for a `logger` option: a structured logger as given, a console-like one adapted, and none at all the
 * default one (`stderrLogger`), because an unexpected handler error that nobody sees is a bug nobody can fix.
 */
export function toLogger(given: LoggerLike | undefined): Logger {
  if (given === undefined) return stderrLogger();
  if (typeof (given as Partial<Logger>).child === 'function') return given as Logger;
  return consoleLogger(given);
}

/**
 * The default logger: one JSON line per record on stderr (`console.error` where there is no stderr), warnings and
 * errors only, so a server logs nothing until something goes wrong. An error's stack is in the line (escaped, so
 * the record stays one line).
 */
export function stderrLogger(level: LogLevelName = 'warn'): Logger {
  return recordLogger(level, {}, (record) => writeStderr(JSON.stringify(record, safeValue())));
}

/**
 * A console-like object as a logger: each record is one call of the matching console method, the message first,
 * then its fields (bindings merged, secrets redacted) for the console to format (an error with its stack).
 */
export function consoleLogger(target: ConsoleLike, level: LogLevelName = 'debug'): Logger {
  return recordLogger(level, {}, (record) => {
    const { level: at, msg, ...fields } = record;
    const method = (target[at as LogLevelName] ?? target.error).bind(target);
    method(`mcplite: ${String(msg)}`, redact(fields));
  });
}

type Sink = (record: Record<string, unknown>) => void;

function recordLogger(level: LogLevelName, bindings: Record<string, unknown>, sink: Sink): Logger {
  const threshold = RANK[level];
  const at =
    (name: LogLevelName) =>
    (obj: unknown, msg?: string): void => {
      if (RANK[name] < threshold) return;
      // pino's calling conventions: (fields, message), (message), (error, message).
      const fields =
        obj instanceof Error
          ? { err: obj }
          : typeof obj === 'object' && obj !== null
            ? (obj as Record<string, unknown>)
            : {};
      const message = typeof obj === 'string' ? obj : (msg ?? '');
      // Spread in one object, so a field named twice (a binding and a field) is written once.
      sink({
        level: name,
        time: new Date().toISOString(),
        name: 'mcplite',
        ...bindings,
        ...fields,
        msg: message,
      });
    };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (more) => recordLogger(level, { ...bindings, ...more }, sink),
  };
}

/** Writes one line to stderr synchronously (Node's stderr is synchronous for files, pipes and terminals). */
function writeStderr(line: string): void {
  const stderr = (globalThis as { process?: { stderr?: { write?: (s: string) => unknown } } }).process
    ?.stderr;
  if (typeof stderr?.write === 'function') stderr.write(`${line}\n`);
  else console.error(line);
}

/** A JSON.stringify replacer: errors with their stack and causes, secrets redacted, cycles and bigints survived. */
function safeValue(): (key: string, value: unknown) => unknown {
  const seen = new WeakSet<object>();
  return (key, value) => {
    if (key !== '' && SECRET_FIELD.test(key)) return REDACTED;
    if (typeof value === 'bigint') return value.toString();
    if (typeof value !== 'object' || value === null) return value;
    if (seen.has(value)) return '[circular]';
    seen.add(value);
    return value instanceof Error ? errorFields(value) : value;
  };
}

function errorFields(err: Error): Record<string, unknown> {
  const { code } = err as { code?: unknown };
  return {
    type: err.name,
    message: err.message,
    ...(code !== undefined ? { code } : {}),
    stack: err.stack,
    ...(err.cause !== undefined ? { cause: err.cause } : {}),
  };
}

/** The fields with secret-named values replaced, at any depth (errors kept whole for the console to show). */
function redact(fields: Record<string, unknown>, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (SECRET_FIELD.test(key)) out[key] = REDACTED;
    else if (depth < 4 && isPlainObject(value)) out[key] = redact(value, depth + 1);
    else out[key] = value;
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
