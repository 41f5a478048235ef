import type { CallRequest } from '../../core/call-request.js';
import type { ElicitationReply } from '../../core/elicitations.js';
import { McpLiteError } from '../../core/errors.js';
import type { MaybePromise } from '../../core/maybe-promise.js';
import { noticeKind } from '../../core/notices.js';
import type {
  CallResult,
  ElicitationOutcome,
  ElicitationRequestOutcome,
  PromiseOutcome,
} from '../../core/outcomes.js';
import type { ToolServer } from '../../core/server.js';
import { isToolError } from '../../core/tool-errors.js';
import { BindingCall, sessionTokenOf } from '../common/binding-call.js';
import { elicitationReplyOf } from '../common/elicitation.js';
import { isObject, type JsonRpcRequest } from '../common/jsonrpc.js';
import type { Exchange } from './exchange.js';
import type { Flight, Flights } from './flights.js';
import type { HandshakeTasks } from './handshake-tasks.js';
import { awaitPromised } from './inline-wait.js';
import { inputRequests, toElicitationReply } from './input-requests.js';
import { logPasses } from './log-levels.js';
import { type McpNativeTool, nativeContext } from './native.js';
import type { TaskRegistry } from './tasks.js';
import { httpStatusOf, toCallToolResult, toolErrorResult } from './wire.js';

/** Most elicitation rounds of one handshake-revision tools/call. */
const MAX_ELICITATION_ROUNDS = 8;

/**
 * MCP `tools/call`: runs a core tool (or a native MCP tool) and maps its outcome to a `CallToolResult`. Notices the
 * handler sends become `notifications/progress` and `notifications/message`; an elicitation becomes
 * `input_required` (2026-07-28) or `elicitation/create` rounds with the client (handshake revisions); a promise
 * becomes a task for a client that declared the tasks extension (or, on 2025-11-25, sent `params.task`, which
 * makes every outcome a task: `handshake-tasks.ts`), and is otherwise awaited in the call for up to
 * `mcpInlineWaitMs` (`inline-wait.ts`), its notices still sent, before it is answered as the promise.
 */
export class ToolCalls {
  constructor(
    private readonly server: ToolServer,
    private readonly native: ReadonlyMap<string, McpNativeTool>,
    private readonly flights: Flights,
    private readonly tasks: TaskRegistry | undefined,
    private readonly handshakeTasks?: HandshakeTasks,
  ) {}

  /**
   * Not `async`: it returns the flight's promise as it is, where an async function would wrap it in one more
   * promise and cost every call extra microtask turns. Throws what it finds wrong at once.
   */
  call(m: JsonRpcRequest, x: Exchange): MaybePromise<Record<string, unknown>> {
    const params = (isObject(m.params) ? m.params : {}) as Record<string, unknown>;
    const name = params.name;
    if (typeof name !== 'string')
      throw new McpLiteError('invalid_params', 'Invalid params: "name" must be a string');
    const meta = isObject(params._meta) ? params._meta : {};
    const progressToken = meta.progressToken;
    const hasProgress = typeof progressToken === 'string' || typeof progressToken === 'number';
    const native = this.native.get(name);
    const tool = this.server.catalog.get(name);
    if (native && !tool) {
      const token = hasProgress ? (progressToken as string | number) : undefined;
      // A native tool walks the server's chain too (a middleware's refusal holds for it); its result is the
      // CallToolResult it makes, not an outcome.
      const args = isObject(params.arguments) ? params.arguments : undefined;
      return this.server.operate('tools/call', name, args, x, () =>
        this.flights.run(m, x, async (flight) =>
          native.handler(params, nativeContext(x, flight.signal, token)),
        ),
      );
    }
    // As listed (wire.ts toMcpTool): a long-running tool lists no outputSchema, so its promise keeps structuredContent.
    const hasOutputSchema = tool?.wire.outputSchema !== undefined && tool.longRunningEstimateMs === undefined;
    const tasks = this.tasks;
    let elicitation: CallRequest['elicitation'];
    if (x.stateless && params.requestState !== undefined) elicitation = answersFromInputResponses(params);
    else if (!x.stateless && params.elicitation !== undefined)
      elicitation = mcpLiteAnswers(params.elicitation);
    const handshakeTasks = this.handshakeTasks?.requested(params, x) ? this.handshakeTasks : undefined;
    // A 2025-11-25 call that asked for a task runs as one; any other call of a task-required tool needs the
    // 2026-07-28 extension.
    if (!handshakeTasks) tasks?.checkRequired(name, x, this.handshakeTasks?.applies(x) === true);
    const asTask = tasks !== undefined && x.stateless && tasks.optedIn(x);
    const notices =
      x.canNotify && (hasProgress || x.logLevel !== undefined)
        ? new CallNotices(x, hasProgress ? (progressToken as string | number) : undefined)
        : undefined;
    const onPartial = notices?.send;
    const session = sessionTokenOf(meta, 'mcplite/session');
    const run = (flight: Flight, answers?: CallRequest['elicitation']) => {
      const call = new BindingCall({
        name,
        arguments: params.arguments,
        principal: x.principal,
        signalSource: flight,
        addressSource: x,
        requestId: m.id ?? undefined,
        onPartial,
        elicitation: answers,
        binding: x.binding ?? 'mcp',
        wire: { meta, protocolVersion: x.revision, sessionId: x.session?.id, transport: x.framing },
      });
      call.session = session;
      return this.server.call(call);
    };
    const inlineWaitMs = tool?.system ? 0 : this.server.mcpInlineWaitMs;
    const complete = (result: CallResult, flight: Flight): MaybePromise<Record<string, unknown>> => {
      if (handshakeTasks) return handshakeTasks.created(name, result, x);
      if (result.outcome.type !== 'promise') return toCallToolResult(result, { hasOutputSchema });
      if (asTask) return tasks.fromPromise(name, params.arguments, result.outcome, x);
      if (inlineWaitMs <= 0) return toCallToolResult(result, { hasOutputSchema });
      const promised = result as CallResult & { outcome: PromiseOutcome };
      return awaitPromised(this.server, promised, x, flight.signal, inlineWaitMs).then((r) =>
        toCallToolResult(r, { hasOutputSchema }),
      );
    };
    const go = () =>
      this.flights.run(m, x, (flight) => {
        let first: MaybePromise<CallResult>;
        try {
          first = run(flight, elicitation);
        } catch (err) {
          notices?.close();
          return toolErrorOrThrow(err, x.stateless);
        }
        // A synchronous handler's answer is mapped in this turn; awaiting it would cost every call promise turns.
        if (!(first instanceof Promise) && first.outcome.type !== 'elicitation') {
          const done = complete(first, flight);
          if (done instanceof Promise) return answered(done, x.stateless, notices);
          notices?.close();
          return done;
        }
        return answered(elicitationRounds(first, flight, x, run, complete), x.stateless, notices);
      });
    // A caller holding as many tasks as allowed is refused before its work starts (the store counts them), on
    // either revision's tasks.
    return tasks && (asTask || handshakeTasks) ? tasks.admit(x).then(go) : go();
  }
}

/**
 * A tool execution error (`core/tool-errors.ts`) as its `isError` result, which the model reads (SEP-1303); any
 * other error is thrown on and answered as a JSON-RPC error (an unknown tool, a malformed request, a bound). So is
 * a tool's error that has an HTTP status of its own (a handler reporting the server unavailable, 503, or a bound
 * reached, 429): it tells of the server rather than of the call, and answers alike on every wire.
 */
export function toolErrorOrThrow(err: unknown, stateless: boolean): Record<string, unknown> {
  if (isToolError(err) && httpStatusOf(err, stateless) === 200) return toolErrorResult(err);
  throw err;
}

/** The answer of a call that had to wait, a tool execution error as its result; its notices end with it. */
async function answered(
  rounds: Promise<Record<string, unknown>>,
  stateless: boolean,
  notices: CallNotices | undefined,
): Promise<Record<string, unknown>> {
  try {
    return await rounds;
  } catch (err) {
    return toolErrorOrThrow(err, stateless);
  } finally {
    notices?.close();
  }
}

/** The rest of a tools/call that has to wait: for the handler, and for the rounds of an elicitation. */
async function elicitationRounds(
  first: MaybePromise<CallResult>,
  flight: Flight,
  x: Exchange,
  run: (flight: Flight, answers?: CallRequest['elicitation']) => MaybePromise<CallResult>,
  complete: (result: CallResult, flight: Flight) => MaybePromise<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  let result: CallResult = await first;
  for (let round = 0; result.outcome.type === 'elicitation'; round++) {
    const outcome = result.outcome;
    if (x.stateless) {
      if (!isObject(x.clientCapabilities.elicitation)) {
        throw new McpLiteError('missing_capability', 'Missing required client capability: elicitation', {
          requiredCapabilities: { elicitation: {} },
        });
      }
      return {
        resultType: 'input_required',
        inputRequests: inputRequests(outcome),
        requestState: outcome.state,
      };
    }
    if (!x.request || !isObject(x.clientCapabilities.elicitation) || round >= MAX_ELICITATION_ROUNDS) break;
    // A decline or cancel runs the tool again too (ctx.elicitation.action), as on every wire.
    result = await run(flight, await askClient(x.request, x.revision, outcome));
  }
  return complete(result, flight);
}

/**
 * Handshake revisions: asks the client with `elicitation/create`. A server request carries one form, so the
 * requests of a multi-request elicitation are asked one after the other, and core gets them all at once; the
 * first one declined or cancelled ends the asking, and core gets that.
 */
async function askClient(
  request: NonNullable<Exchange['request']>,
  revision: string,
  outcome: ElicitationOutcome,
): Promise<ElicitationReply> {
  const forms: Array<[string, ElicitationRequestOutcome]> = outcome.requests
    ? Object.entries(outcome.requests)
    : [['', outcome]];
  const answers: Record<string, unknown> = {};
  for (const [name, form] of forms) {
    const reply = await request('elicitation/create', {
      ...(revision >= '2025-11-25' ? { mode: 'form' } : {}),
      message: form.message,
      requestedSchema: form.requestedSchema,
    });
    const action = isObject(reply) ? reply.action : undefined;
    // Anything but an accept or a decline (no action, an unknown one) is the user not choosing: a cancel.
    if (action !== 'accept') {
      return { state: outcome.state, answers: {}, action: action === 'decline' ? 'decline' : 'cancel' };
    }
    answers[name] = isObject(reply) ? (reply.content ?? {}) : {};
  }
  return { state: outcome.state, answers: outcome.requests ? answers : answers[''] };
}

/**
 * The answers of a handshake-revision retry after the fallback text (a client that could not be asked):
 * `params.elicitation` is `{ state, answers }`, as MCP-lite HTTP takes it; core checks the state and the answers.
 */
function mcpLiteAnswers(elicitation: unknown): CallRequest['elicitation'] {
  return elicitationReplyOf(
    elicitation,
    (why) => new McpLiteError('invalid_params', `Invalid params: "elicitation" ${why}`),
  );
}

/** The answers of a stateless retry: `requestState` plus the elicitation's `inputResponses`. */
function answersFromInputResponses(params: Record<string, unknown>): CallRequest['elicitation'] {
  if (params.inputResponses !== undefined && !isObject(params.inputResponses)) {
    throw new McpLiteError('invalid_params', 'Invalid params: inputResponses must be an object');
  }
  const responses = isObject(params.inputResponses) ? params.inputResponses : {};
  const reply = toElicitationReply(params.requestState, responses);
  if (!reply) {
    throw new McpLiteError('invalid_params', 'Invalid params: inputResponses.elicitation is missing', {
      reason: 'missing_input_response',
    });
  }
  return reply;
}

/**
 * The handler's notices as MCP notifications, for as long as the request is open: log notices become
 * `notifications/message` (when they pass the request's level), everything else `notifications/progress` (when
 * the client sent a progress token; partial results without a number of their own count up). Once the request is
 * answered (a long-running tool's promise answers at once while its work goes on) they are dropped: the request's
 * stream is over, its progress token spent, and a notice sent there would wait for a reader that never comes. The
 * work's partials still reach a streaming `redeem` (core's work queue watch).
 */
class CallNotices {
  private progressCount = 0;
  private open = true;

  constructor(
    private readonly x: Exchange,
    private readonly progressToken: string | number | undefined,
  ) {}

  /** The request was answered: later notices go nowhere. */
  close(): void {
    this.open = false;
  }

  readonly send = (data: unknown): Promise<void> | undefined => {
    if (!this.open) return undefined;
    const { x, progressToken } = this;
    const kind = noticeKind(data);
    if (kind === 'log') {
      const n = data as { level: string; data: unknown; logger?: string };
      if (!logPasses(n.level, x.logLevel)) return undefined;
      return x.notify({
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: n.level, data: n.data, ...(n.logger ? { logger: n.logger } : {}) },
      });
    }
    if (progressToken === undefined) return undefined;
    this.progressCount++;
    const p =
      kind === 'progress'
        ? (data as { progress: number; total?: number; message?: string })
        : { progress: this.progressCount, message: typeof data === 'string' ? data : JSON.stringify(data) };
    return x.notify({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: {
        progressToken,
        progress: p.progress,
        ...(p.total !== undefined ? { total: p.total } : {}),
        ...(p.message !== undefined ? { message: p.message } : {}),
      },
    });
  };
}
