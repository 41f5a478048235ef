import type { Principal } from './auth.js';
import type { Logger } from './logger.js';
import type { ElicitationAnswers, ToolContext } from './tool.js';

const DONE = Promise.resolve();

/** What a binding passes in for one call, as far as the handler's context is concerned. */
export interface ContextInit {
  tool: string;
  principal: Principal | undefined;
  elicitation: ElicitationAnswers | undefined;
  background: boolean;
  clientSignal: AbortSignal | undefined;
  onPartial: ((data: unknown) => void | Promise<void>) | undefined;
  logger: Logger;
  requestId: string | number | undefined;
}

/**
 * The handler's context. The AbortController and the child logger are made only when a handler asks for them,
 * because most calls never do and the hot path should not pay for them.
 */
export class CallContext implements ToolContext {
  readonly tool: string;
  readonly principal: Principal | undefined;
  readonly elicitation: ElicitationAnswers | undefined;
  readonly streaming: boolean;
  private isBackground: boolean;
  private controller: AbortController | undefined;
  private childLog: Logger | undefined;

  constructor(private readonly init: ContextInit) {
    this.tool = init.tool;
    this.principal = init.principal;
    this.elicitation = init.elicitation;
    this.isBackground = init.background;
    this.streaming = init.onPartial !== undefined;
  }

  get background(): boolean {
    return this.isBackground;
  }

  get signal(): AbortSignal {
    return this.abortController().signal;
  }

  get log(): Logger {
    this.childLog ??= this.init.logger.child({ tool: this.tool, requestId: this.init.requestId });
    return this.childLog;
  }

  partial(data: unknown): Promise<void> {
    const sink = this.init.onPartial;
    if (!sink) return DONE;
    const r = sink(data);
    return r === undefined ? DONE : r;
  }

  /** The controller behind `signal`; created on first use and linked to the client's signal. */
  abortController(): AbortController {
    if (!this.controller) {
      const controller = new AbortController();
      this.controller = controller;
      const client = this.init.clientSignal;
      if (client) {
        if (client.aborted) controller.abort(client.reason);
        else
          client.addEventListener(
            'abort',
            () => {
              // Once the call became a promise, the client going away no longer stops the work.
              if (!this.isBackground) controller.abort(client.reason);
            },
            { once: true },
          );
      }
    }
    return this.controller;
  }

  /** Detaches the work from the client: from now on only a promise cancel (or shutdown) aborts it. */
  detach(): AbortController {
    const controller = this.abortController();
    this.isBackground = true;
    return controller;
  }
}
