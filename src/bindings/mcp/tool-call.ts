import type { CallRequest } from '../../core/call-request.js';
import type { ElicitationReply } from '../../core/elicitations.js';
import { McpLiteError } from '../../core/errors.js';
import type { MaybePromise } from '../../core/maybe-promise.js';
import { noticeKind } from '../../core/notices.js';
import type { CallResult, ElicitationOutcome, ElicitationRequestOutcome } from '../../core/outcomes.js';
import type { ToolServer } from '../../core/server.js';
import { BindingCall } from '../common/binding-call.js';
import { isObject, type JsonRpcRequest } from '../common/jsonrpc.js';
import type { Exchange } from './exchange.js';
import type { Flight, Flights } from './flights.js';
import { inputRequests, toElicitationReply } from './input-requests.js';
import { logPasses } from './log-levels.js';
import { type McpNativeTool, nativeContext } from './native.js';
import type { TaskRegistry } from './tasks.js';
import { toCallToolResult } from './wire.js';

/** Most elicitation rounds of one handshake-revision tools/call. */
const MAX_ELICITATION_ROUNDS = 8;

/**
 * MCP `tools/call`: runs a core tool (or a native MCP tool) and maps its outcome to a `CallToolResult`. Notices the
 * handler sends become `notifications/progress` and `notifications/message`; an elicitation becomes
 * `input_required` (2026-07-28) or `elicitation/create` rounds with the client (handshake revisions); a promise
 * becomes a task for a client that declared the tasks extension.
 */
export class ToolCalls {
  constructor(
    private readonly server: ToolServer,
    private readonly native: ReadonlyMap<string, McpNativeTool>,
    private readonly flights: Flights,
    private readonly tasks: TaskRegistry | undefined,
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
      return this.flights.run(m, x, async (flight) =>
        native.handler(params, nativeContext(x, flight.signal, token)),
      );
    }
    // As listed (wire.ts toMcpTool): a long-running tool lists no outputSchema, so its promise keeps structuredContent.
    const hasOutputSchema = tool?.wire.outputSchema !== undefined && tool.longRunningEstimateMs === undefined;
    const tasks = this.tasks;
    let elicitation: CallRequest['elicitation'];
    if (x.stateless && params.requestState !== undefined) elicitation = answersFromInputResponses(params);
    else if (!x.stateless && params.elicitation !== undefined)
      elicitation = mcpLiteAnswers(params.elicitation);
    this.tasks?.checkRequired(name, x);
    const asTask = tasks !== undefined && x.stateless && tasks.optedIn(x);
    const onPartial =
      x.canNotify && (hasProgress || x.logLevel !== undefined)
        ? noticeSender(x, hasProgress ? (progressToken as string | number) : undefined)
        : undefined;
    const run = (flight: Flight, answers?: CallRequest['elicitation']) =>
      this.server.call(
        new BindingCall(
          name,
          params.arguments,
          x.principal,
          flight,
          x,
          m.id ?? undefined,
          onPartial,
          answers,
          'mcp',
        ),
      );
    const complete = (result: CallResult): MaybePromise<Record<string, unknown>> =>
      result.outcome.type === 'promise' && asTask
        ? tasks.fromPromise(name, params.arguments, result.outcome, x)
        : toCallToolResult(result, { hasOutputSchema });
    const go = () =>
      this.flights.run(m, x, (flight) => {
        const first = run(flight, elicitation);
        // A synchronous handler's answer is mapped in this turn; awaiting it would cost every call promise turns.
        if (!(first instanceof Promise) && first.outcome.type !== 'elicitation') return complete(first);
        return elicitationRounds(first, flight, x, run, complete);
      });
    // A caller holding as many tasks as allowed is refused before its work starts (the store counts them).
    return asTask ? tasks.admit(x).then(go) : go();
  }
}

/** The rest of a tools/call that has to wait: for the handler, and for the rounds of an elicitation. */
async function elicitationRounds(
  first: MaybePromise<CallResult>,
  flight: Flight,
  x: Exchange,
  run: (flight: Flight, answers?: CallRequest['elicitation']) => MaybePromise<CallResult>,
  complete: (result: CallResult) => MaybePromise<Record<string, unknown>>,
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
    const reply = await askClient(x.request, x.revision, outcome);
    if ('refused' in reply) {
      return {
        content: [{ type: 'text', text: `The user did not provide the input (${reply.refused}).` }],
        isError: true,
      };
    }
    result = await run(flight, reply);
  }
  return complete(result);
}

/**
 * Handshake revisions: asks the client with `elicitation/create`. A server request carries one form, so the
 * requests of a multi-request elicitation are asked one after the other, and core gets them all at once.
 */
async function askClient(
  request: NonNullable<Exchange['request']>,
  revision: string,
  outcome: ElicitationOutcome,
): Promise<ElicitationReply | { refused: string }> {
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
    if (action !== 'accept') return { refused: String(action ?? 'no answer') };
    answers[name] = isObject(reply) ? (reply.content ?? {}) : {};
  }
  return { state: outcome.state, answers: outcome.requests ? answers : answers[''] };
}

/**
 * The answers of a handshake-revision retry after the fallback text (a client that could not be asked):
 * `params.elicitation` is `{ state, answers }`, as MCP-lite HTTP takes it; core checks the state and the answers.
 */
function mcpLiteAnswers(elicitation: unknown): CallRequest['elicitation'] {
  if (!isObject(elicitation)) {
    throw new McpLiteError('invalid_params', 'Invalid params: "elicitation" must be { state, answers }');
  }
  return { state: elicitation.state, answers: elicitation.answers };
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
 * The handler's notices as MCP notifications: log notices become `notifications/message` (when they pass the
 * request's level), everything else `notifications/progress` (when the client sent a progress token; partial
 * results without a number of their own count up).
 */
function noticeSender(
  x: Exchange,
  progressToken: string | number | undefined,
): (data: unknown) => Promise<void> | undefined {
  let progressCount = 0;
  return (data) => {
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
    progressCount++;
    const p =
      kind === 'progress'
        ? (data as { progress: number; total?: number; message?: string })
        : { progress: progressCount, message: typeof data === 'string' ? data : JSON.stringify(data) };
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
