import type { CallRequest } from './call-request.js';
import type { CompiledTool } from './catalog.js';
import type { CallContext } from './context.js';
import type { McpLiteError } from './errors.js';
import type { Operation, OperationCaller } from './operation.js';
import { RequestCaller } from './operation-caller.js';
import type { CallResult } from './outcomes.js';

/**
 * A `tools/call` walking the chain. Built only on a server with a chain (`Pipeline.empty` false). It keeps what
 * core resolved (the tool, the checked arguments) and core's own result, so that a chain that hands the outcome
 * back unchanged reuses that result rather than building a second one.
 */
export class ToolCallOperation implements Operation {
  readonly method = 'tools/call' as const;
  /** The raw arguments until core has checked them, then the checked ones (what user middleware sees). */
  arguments: Readonly<Record<string, unknown>> | undefined;
  /** The tool, once core found it. */
  tool: CompiledTool | undefined;
  /** Why core refused the call before it could run (`ToolResolution.screen`); the chain still walks. */
  error: McpLiteError | undefined;
  /** Core's result of the call, when it ran. */
  result: CallResult | undefined;
  /** The handler's context, once it runs: `timeout` aborts it. */
  context: CallContext | undefined;
  private callerView: RequestCaller | undefined;

  constructor(
    readonly request: CallRequest,
    readonly startedAt: number,
  ) {
    this.arguments = request.arguments as Readonly<Record<string, unknown>> | undefined;
  }

  get name(): string {
    return this.request.name;
  }

  /** The request's `_meta` (tracing reads its trace context). */
  get meta(): Readonly<Record<string, unknown>> | undefined {
    return this.request.wire?.meta;
  }

  get caller(): OperationCaller {
    this.callerView ??= new RequestCaller(this.request);
    return this.callerView;
  }
}

/** The compiled tool of a tool call operation (its definition's flags), once core found it. */
export function toolOf(op: Operation): CompiledTool | undefined {
  return op instanceof ToolCallOperation ? op.tool : undefined;
}

/** Aborts a running tool call's handler (its `ctx.signal`), when the operation is one that runs. */
export function abortOperation(op: Operation, reason: unknown): void {
  if (op instanceof ToolCallOperation) op.context?.lazyAbort().abort(reason);
}
