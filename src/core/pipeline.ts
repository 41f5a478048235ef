import type { MaybePromise } from './maybe-promise.js';
import type { Middleware, Operation, OperationCaller } from './operation.js';
import type { WireTool } from './tool.js';

/** Whether a caller may see (list and call) a tool: what `visibleTools` was given. */
export type ToolVisibility = (tool: WireTool, caller: OperationCaller) => boolean;

const VISIBILITY = Symbol('mcplite.visibility');

/**
 * Marks a middleware as hiding tools, so that core asks `visible` before it checks a call's arguments: a hidden
 * tool is then `tool_not_found` whatever its arguments (an `invalid_params` would tell the caller it exists).
 */
export function withVisibility(middleware: Middleware, visible: ToolVisibility): Middleware {
  return Object.assign(middleware, { [VISIBILITY]: visible });
}

const ENTRY = Symbol('mcplite.entry');

/**
 * Marks a stage whose whole work is `enter(op)` before it passes on (tool resolution): where it is the chain's first
 * stage, `Pipeline` calls `enter` and skips the stage's turn, which saves every operation a closure and a call.
 */
export function withEntry(middleware: Middleware, enter: (op: Operation) => void): Middleware {
  return Object.assign(middleware, { [ENTRY]: enter });
}

/** What runs once the chain has passed: the operation itself. */
export type Terminal = (op: Operation) => MaybePromise<unknown>;

/**
 * The ordered middleware chain of one server, composed once when the server is built: an operation walks it
 * stage by stage and then reaches its terminal. A server without any stage never builds an operation at all
 * (`ToolServer` checks `Pipeline.empty`), so the bare call path allocates nothing for it.
 */
export class Pipeline {
  /** True when no stage is installed: bindings' fast paths skip the chain. */
  readonly empty: boolean;
  /** True when a user middleware is installed: listings must walk the chain (else the cached listing is used). */
  readonly seesEveryOperation: boolean;
  private readonly visibility: readonly ToolVisibility[];
  /** The stages a walk steps through (a leading entry stage is not among them: `enter` does its work). */
  private readonly stages: readonly Middleware[];
  private readonly enter: ((op: Operation) => void) | undefined;

  constructor(
    /** The built-in stages (core/middleware/: tracing, observer, rate limiter, tool resolution), then the user's. */
    stages: readonly Middleware[],
    userStages: number,
  ) {
    this.empty = stages.length === 0;
    this.enter = (stages[0] as { [ENTRY]?: (op: Operation) => void } | undefined)?.[ENTRY];
    this.stages = this.enter ? stages.slice(1) : stages;
    this.seesEveryOperation = userStages > 0;
    this.visibility = stages.flatMap((s) => {
      const visible = (s as { [VISIBILITY]?: ToolVisibility })[VISIBILITY];
      return visible ? [visible] : [];
    });
  }

  /** Whether the caller may see the tool (every `visibleTools` stage agrees). */
  visible(tool: WireTool, caller: OperationCaller): boolean {
    for (const v of this.visibility) if (!v(tool, caller)) return false;
    return true;
  }

  /** Whether some stage hides tools from some callers. */
  get hidesTools(): boolean {
    return this.visibility.length > 0;
  }

  /** Runs `op` through every stage, then `terminal`. A stage's throw or rejection is the operation's error. */
  run(op: Operation, terminal: Terminal): MaybePromise<unknown> {
    if (this.enter !== undefined) this.enter(op);
    return this.step(0, op, terminal);
  }

  private step(index: number, op: Operation, terminal: Terminal): MaybePromise<unknown> {
    const stage = this.stages[index];
    if (stage === undefined) return terminal(op);
    return stage(op, () => this.step(index + 1, op, terminal));
  }
}
