/** How one tool call ended, for metrics (`ToolServerOptions.onCallEnd`). */
export interface CallRecord {
  /** The tool's name as called (an unknown name too). */
  tool: string;
  /** The binding the call came through (`http`, `grpc`, `mcp`, `webtools`, ...), or `unknown`. */
  binding: string;
  /** The outcome type (`answer`, `failure`, `promise`, ...), or `error:<code>` for a protocol error. */
  outcome: string;
  /** Wall time from receipt to the answer, in seconds. */
  seconds: number;
}

/** Receives every finished tool call; must be cheap and never throw (it runs on the call's path). */
export type CallObserver = (record: CallRecord) => void;

/**
 * `call`, telling `observer` how each call ended. A wrapper (like the rate limiter's), so that servers without an
 * observer pay nothing on the call path.
 */
export function observeCalls<R extends { name: string; binding?: string | undefined }, T>(
  call: (request: R) => T | Promise<T>,
  outcomeOf: (result: T) => string,
  errorCodeOf: (err: unknown) => string,
  observer: CallObserver,
): (request: R) => T | Promise<T> {
  return (request) => {
    const started = performance.now();
    const report = (outcome: string) => {
      try {
        observer({
          tool: request.name,
          binding: request.binding ?? 'unknown',
          outcome,
          seconds: (performance.now() - started) / 1000,
        });
      } catch {
        // An observer must never break a call.
      }
    };
    let result: T | Promise<T>;
    try {
      result = call(request);
    } catch (err) {
      report(`error:${errorCodeOf(err)}`);
      throw err;
    }
    if (!(result instanceof Promise)) {
      report(outcomeOf(result));
      return result;
    }
    return result.then(
      (r) => {
        report(outcomeOf(r));
        return r;
      },
      (err) => {
        report(`error:${errorCodeOf(err)}`);
        throw err;
      },
    );
  };
}
