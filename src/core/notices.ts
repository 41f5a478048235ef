import type { ToolContext } from './tool.js';

/**
 * Progress reports and client-visible log messages. Both travel the partial channel of a streaming call (so
 * they get its backpressure and need no extra plumbing); MCP turns them into `notifications/progress` and
 * `notifications/message`, other bindings send them as ordinary partials (their JSON drops the brand).
 */

const NOTICE = Symbol.for('mcplite.notice');

/** How far a call has come. */
export interface ProgressNotice {
  readonly [NOTICE]: 'progress';
  progress: number;
  total?: number;
  message?: string;
}

/** A log message meant for the client (MCP sends it when the client asked for that level). */
export interface LogNotice {
  readonly [NOTICE]: 'log';
  level: 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';
  data: unknown;
  logger?: string;
}

/** Reports progress (`progress` of `total`). A no-op unless the call streams. */
export function reportProgress(
  ctx: ToolContext,
  progress: number,
  options: { total?: number; message?: string } = {},
): Promise<void> {
  const notice = { [NOTICE]: 'progress', progress, ...options } as ProgressNotice;
  return ctx.partial(notice);
}

/** Sends a log message to the client. A no-op unless the call streams. */
export function logToClient(
  ctx: ToolContext,
  level: LogNotice['level'],
  data: unknown,
  logger?: string,
): Promise<void> {
  const notice = { [NOTICE]: 'log', level, data, ...(logger ? { logger } : {}) } as LogNotice;
  return ctx.partial(notice);
}

/** Which notice a partial is, if any. */
export function noticeKind(value: unknown): 'progress' | 'log' | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const kind = (value as Record<symbol, unknown>)[NOTICE];
  return kind === 'progress' || kind === 'log' ? kind : undefined;
}

/**
 * A notice that crossed a process as JSON (the work queue's channel, from a worker to the front the client waits
 * on), branded again: JSON keeps its fields but drops the brand, which `noticeKind` read before it left.
 */
export function restoreNotice(kind: 'progress' | 'log', fields: object): ProgressNotice | LogNotice {
  return { ...fields, [NOTICE]: kind } as ProgressNotice | LogNotice;
}
