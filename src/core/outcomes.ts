import type { JsonSchema, SchemaInput } from './schema.js';

/**
 * The five outcome kinds of MCP-lite (spec 3.4; docs/architecture.md, "The outcome model"), the one list they are
 * defined in: `ResponseType` is read from it, and the wire name of each is its `type`.
 */
export const RESPONSE_TYPES = [
  'answer',
  'promise',
  'elicitation',
  'failure',
  'request-for-more-resource',
] as const;

/** One outcome kind (see `RESPONSE_TYPES`). */
export type ResponseType = (typeof RESPONSE_TYPES)[number];

/**
 * An outcome kind read from a wire (`_meta.response_type` of a JSON result): the kind when it is one of the five,
 * else undefined, so that a receiver refuses a kind it does not know instead of taking it for another.
 */
export function responseTypeOf(value: unknown): ResponseType | undefined {
  return typeof value === 'string' && (RESPONSE_TYPES as readonly string[]).includes(value)
    ? (value as ResponseType)
    : undefined;
}

/**
 * The `default` of a switch over outcome kinds: it takes `never`, so a kind added to `RESPONSE_TYPES` that a switch
 * does not handle is a compile error there (docs/architecture.md, "Adding an outcome type"). Reached at run time only
 * through a cast, which it reports rather than answering for a kind it cannot know.
 */
export function unhandledOutcome(kind: never): never {
  throw new TypeError(`Unhandled outcome kind: ${String((kind as { type?: unknown })?.type ?? kind)}`);
}

/** Done: here is the result. */
export interface AnswerOutcome {
  type: 'answer';
  result: unknown;
}
/** The tool ran and failed for a business reason (not a protocol error). */
export interface FailureOutcome {
  type: 'failure';
  message: string;
  code?: string;
  details?: unknown;
}
/** Long-running: redeem `token` later with the `redeem` tool. */
export interface PromiseOutcome {
  type: 'promise';
  token: string;
  /** ISO-8601 time when the work is expected to be done. */
  estimatedCompletion: string;
}
/** More input is needed: ask the user `message`, answers shaped by `requestedSchema`, send back with `state`. */
export interface ElicitationOutcome {
  type: 'elicitation';
  message: string;
  /**
   * What the answers must look like. For several requests: an object with one (optional) property per request
   * still open, so that a client that knows only the single form can still show and answer it.
   */
  requestedSchema: JsonSchema;
  /** Server-signed, opaque; the client returns it unchanged with the answers. */
  state: string;
  /**
   * Present when the handler asked for several inputs in one round: the requests still open, by name. The
   * answers are then keyed by request name; answering only some of them gets a new elicitation for the rest.
   */
  requests?: Record<string, ElicitationRequestOutcome>;
}

/** One open request of a multi-request elicitation. */
export interface ElicitationRequestOutcome {
  message: string;
  requestedSchema: JsonSchema;
}
/** The call needs a larger budget than it was given: which resource and how much. */
export interface ResourceRequestOutcome {
  type: 'request-for-more-resource';
  resource: string;
  requested: number;
  granted?: number;
  unit?: string;
  message: string;
}

/** Every outcome a call can end in. */
export type Outcome =
  | AnswerOutcome
  | FailureOutcome
  | PromiseOutcome
  | ElicitationOutcome
  | ResourceRequestOutcome;

/** A promise as its receiver sees it: the estimate is optional, since not every wire carries it. */
export type ReceivedPromiseOutcome = Omit<PromiseOutcome, 'estimatedCompletion'> & {
  estimatedCompletion?: string;
};

/**
 * An outcome as the party that receives it sees it (the inspector shows this; the client's `CallOutcome` builds on
 * it): the same five kinds and fields, without the elicitation's `state` (the receiver keeps it to answer with)
 * and with the promise's estimate optional. The receivers declare theirs from this one union, so a kind added to
 * `Outcome` reaches every switch over them at compile time (docs/architecture.md, "The outcome model").
 */
export type ReceivedOutcome =
  | AnswerOutcome
  | FailureOutcome
  | ReceivedPromiseOutcome
  | Omit<ElicitationOutcome, 'state'>
  | ResourceRequestOutcome;

/**
 * The `_meta` every result carries (spec 3.3). Field names are the wire's; times are epoch milliseconds, which
 * each wire formats its way (ISO-8601 text on the JSON wires, int64 on gRPC).
 */
export interface ResponseMeta {
  response_type: ResponseType;
  /** When the result was made, in epoch milliseconds. */
  timestamp: number;
  processing_time_ms: number;
  server_version: string;
  promise_token?: string;
  /** When promised work is expected to be done, in epoch milliseconds. */
  estimated_completion?: number;
  /**
   * The caller's session, signed, when the call set one (`ctx.setSession`): MCP-lite JSON wires write it as
   * `_meta.session`, gRPC as the `mcplite-session` response metadata, MCP as `_meta["mcplite/session"]`.
   */
  session?: string;
}

/** What core hands back to a binding for one call. */
export interface CallResult {
  outcome: Outcome;
  meta: ResponseMeta;
}

// A handler's return value is an answer unless it carries this brand, so plain data never gets misread.
const OUTCOME = Symbol.for('mcplite.outcome');

/** An outcome as a handler returns it (elicitations are completed, that is signed, by core). */
export type HandlerOutcome =
  | (AnswerOutcome & { [OUTCOME]: true })
  | (FailureOutcome & { [OUTCOME]: true })
  | (ResourceRequestOutcome & { [OUTCOME]: true })
  | (ElicitRequest & { [OUTCOME]: true });

/** What a handler asks for when it elicits; core signs `context` (and the requests) into the state. */
export type ElicitRequest = { type: 'elicit' } & ElicitInput;

/**
 * The argument of `elicit()`: one form (`message` + `schema`, answered by one object), or several named
 * requests asked in the same round (`requests`, answered by an object keyed by request name). Several requests
 * exist because some clients (MCP input_required, tasks) show them side by side and may answer them one at a
 * time: core keeps the answers given so far in the signed state and calls the handler once all are in.
 */
export type ElicitInput = SingleElicitInput | MultiElicitInput;

/** One form. */
export interface SingleElicitInput {
  message: string;
  /** What to ask for; default: the tool's `elicitationSchema` (which also types the answers). */
  schema?: SchemaInput;
  /** Anything the handler wants back with the answers (kept in the signed state, so keep it small). */
  context?: unknown;
  requests?: undefined;
}

/** Several named requests in one round; names are identifiers (letters, digits, `_`, `.`, `-`; at most 64). */
export interface MultiElicitInput {
  requests: Record<string, { message: string; schema: SchemaInput }>;
  /** Overall text for clients that show one question; default: the open requests' messages. */
  message?: string;
  /** Anything the handler wants back with the answers (kept in the signed state, so keep it small). */
  context?: unknown;
}

/** True when a handler's value is one of the outcome constructors below. */
export function isHandlerOutcome(value: unknown): value is HandlerOutcome {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[OUTCOME] === true;
}

/** An explicit answer; only needed when a result could be mistaken for something else. */
export function answer(result: unknown): HandlerOutcome {
  return { [OUTCOME]: true, type: 'answer', result };
}

/** A business-logic failure: the tool ran and could not do what was asked. */
export function failure(message: string, options: { code?: string; details?: unknown } = {}): HandlerOutcome {
  return { [OUTCOME]: true, type: 'failure', message, ...options };
}

/**
 * Ask the user for more input; the client calls the same tool again with the answers and the signed state.
 * `elicit({ message, schema })` asks one form; `elicit({ requests: { name: { message, schema }, … } })` asks
 * several at once, and the handler sees `ctx.elicitation.answers` keyed by request name once all are answered.
 */
export function elicit(request: ElicitInput): HandlerOutcome {
  return { [OUTCOME]: true, type: 'elicit', ...request };
}

/** Tell the caller the call needs more of a resource (time, cost, quota, size) than it was given. */
export function needMoreResource(request: Omit<ResourceRequestOutcome, 'type'>): HandlerOutcome {
  return { [OUTCOME]: true, type: 'request-for-more-resource', ...request };
}
