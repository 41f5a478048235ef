import { toMcpLiteError } from '../errors.js';
import type { MaybePromise } from '../maybe-promise.js';
import type { BindingName, Middleware } from '../operation.js';
import type { TargetOf } from '../operation-target.js';
import type { Outcome } from '../outcomes.js';

/** How one tool call ended, for metrics (`ToolServerOptions.onCallEnd`). */
export interface CallRecord {
  /** The tool's name as called (an unknown name too). */
  tool: string;
  /**
   * Whether the server has a tool of that name. A name it does not have is the caller's choice: label it with a
   * placeholder, never as itself, or each random name becomes a series of its own.
   */
  known: boolean;
  /** The binding the call came through (`BindingName` lists them), or `unknown`. */
  binding: BindingName;
  /** The outcome type (`answer`, `failure`, `promise`, ...), or `error:<code>` for a protocol error. */
  outcome: string;
  /** Wall time from receipt to the answer, in seconds. */
  seconds: number;
}

/** Receives every finished tool call; must be cheap and never throw (it runs on the call's path). */
export type CallObserver = (record: CallRecord) => void;

/**
 * The metrics observer as the chain's first stage: it times every `tools/call` (an unknown tool, a refused or
 * rate-limited call too) and tells `observer` how it ended. Installed only when `onCallEnd` is set, so that
 * servers without an observer pay nothing on the call path.
 */
export function observeToolCalls(observer: CallObserver, targetOf: TargetOf): Middleware {
  return (op, next) => {
    if (op.method !== 'tools/call') return next();
    const started = performance.now();
    const report = (outcome: string) => {
      try {
        observer({
          tool: op.name ?? '',
          known: targetOf(op) !== undefined,
          binding: op.caller.binding,
          outcome,
          seconds: (performance.now() - started) / 1000,
        });
      } catch {
        // An observer must never break a call.
      }
    };
    let result: MaybePromise<unknown>;
    try {
      result = next();
    } catch (err) {
      report(`error:${toMcpLiteError(err).code}`);
      throw err;
    }
    if (!(result instanceof Promise)) {
      report((result as Outcome).type);
      return result;
    }
    return result.then(
      (r) => {
        report((r as Outcome).type);
        return r;
      },
      (err) => {
        report(`error:${toMcpLiteError(err).code}`);
        throw err;
      },
    );
  };
}
