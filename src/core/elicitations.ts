import type { Principal } from './auth.js';
import { jsonDigest } from './call-digest.js';
import { declinedAnswers } from './declined-elicitation.js';
import type { ElicitationNonceStore } from './elicitation-nonces.js';
import {
  type ElicitationBinding,
  ElicitationSigner,
  type ElicitationStatePayload,
} from './elicitation-state.js';
import { McpLiteError } from './errors.js';
import { type MaybePromise, mapMaybe } from './maybe-promise.js';
import type {
  ElicitationOutcome,
  ElicitationRequestOutcome,
  ElicitRequest,
  FailureOutcome,
} from './outcomes.js';
import {
  compileValidator,
  type FieldProblem,
  type JsonSchema,
  toJsonSchema,
  type Validator,
} from './schema.js';
import { elicitationTrace, linkToFirstRound } from './telemetry/elicitation-links.js';
import type { ElicitationAction, ElicitationAnswers } from './tool.js';

/** The actions a user may take on an elicitation, as every wire names them (MCP's `ElicitResult.action`). */
export const ELICITATION_ACTIONS: readonly ElicitationAction[] = ['accept', 'decline', 'cancel'];

/** A client's answer to an elicitation, as a binding hands it to core. */
export interface ElicitationReply {
  /** The signed state from the elicitation, unchanged. */
  state: unknown;
  /**
   * What the user did; default `accept`. A decline or cancel carries no answers: the handler runs again with
   * `ctx.elicitation.action` saying so, and decides what that means.
   */
  action?: ElicitationAction;
  /** The answers: the form's object, or (several requests) an object keyed by request name. */
  answers: unknown;
  /**
   * True when `answers` is keyed by request name even for a single-form elicitation, as on wires that name
   * every input (MCP's `inputResponses`): core then takes the one answer. A binding cannot tell the forms apart
   * itself, since the state is opaque to it.
   */
  keyed?: boolean;
}

/** The call that elicits, or answers: a state is bound to its arguments and its principal. */
export interface ElicitingCall {
  /** The validated arguments. */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** The authenticated caller, if any. */
  readonly principal: Principal | undefined;
  /** The answers this call carries, when it answers an elicitation. */
  readonly elicitation?: ElicitationAnswers | undefined;
}

/** What an answer leads to: the handler runs with all answers, or the requests still open are asked again. */
export type ElicitationCheck =
  | { complete: ElicitationAnswers; reask?: undefined }
  | { reask: ElicitationOutcome; complete?: undefined };

/** Names of multi-request elicitations: they become keys on every wire (MCP inputRequests, answer objects). */
const REQUEST_NAME = /^[A-Za-z_][\w.-]{0,63}$/;
const MAX_CACHED_VALIDATORS = 256;
const MAX_REPORTED_PROBLEMS = 10;

type Requests = NonNullable<ElicitationStatePayload['requests']>;

/**
 * Elicitation rounds, protocol-neutral: a handler's `elicit(...)` becomes a signed outcome, and a client's reply
 * becomes what the handler sees. Several requests may be asked in one round; the client may answer some of them
 * (partial fulfilment), and then core, not the handler, asks again for the rest, carrying the answers given so
 * far in the signed state. So the server stays stateless and a handler is only ever called with every answer
 * present and valid.
 */
export class Elicitations {
  private readonly signer: ElicitationSigner;
  private readonly validators = new Map<string, Validator>();

  /**
   * `nonces` remembers answered states (single use); without it no answer is taken, since a state could then
   * answer any number of calls.
   */
  constructor(
    secret: string | Uint8Array | undefined,
    ttlMs: number,
    private readonly nonces: ElicitationNonceStore | undefined,
  ) {
    this.signer = new ElicitationSigner(secret, ttlMs);
  }

  /**
   * The outcome of a handler's `elicit(...)` in `call`. Throws (a bug in the tool) on an invalid request name.
   * A handler that asks again on a round the user declined or cancelled did not handle the refusal: the call
   * ends as declined (a failure, code `declined`), as it always did, rather than asking the user again.
   */
  outcome(tool: string, request: ElicitRequest, call: ElicitingCall): ElicitationOutcome | FailureOutcome {
    const refused = call.elicitation?.action;
    if (refused !== undefined && refused !== 'accept') {
      return {
        type: 'failure',
        code: 'declined',
        message: `The user did not provide the input (${refused}).`,
      };
    }
    const binding = bindingOf(call);
    if (request.requests === undefined) {
      // handler-value.ts gave a schema-less request the tool's elicitationSchema; a tool without one has none.
      if (request.schema === undefined) throw new Error(`Tool "${tool}" elicited with no schema`);
      const requestedSchema = toJsonSchema(request.schema);
      const state = this.signer.sign({
        tool,
        schema: requestedSchema,
        context: request.context ?? null,
        ...binding,
        trace: elicitationTrace(),
      });
      return { type: 'elicitation', message: request.message, requestedSchema, state };
    }
    const entries = Object.entries(request.requests);
    if (entries.length === 0) throw new Error(`Tool "${tool}" elicited with no requests`);
    const requests: Requests = {};
    for (const [name, r] of entries) {
      if (!REQUEST_NAME.test(name))
        throw new Error(`Tool "${tool}" elicited with an invalid request name "${name.slice(0, 80)}"`);
      requests[name] = { message: r.message, schema: toJsonSchema(r.schema) };
    }
    return this.ask(tool, requests, {}, request.message, request.context ?? null, binding);
  }

  /**
   * Checks a reply: the state must be genuine, unexpired, for `tool` and for `call` (its arguments and
   * principal), every answer must fit its schema (-32602 otherwise), and the state must not have answered a call
   * before: its nonce is recorded for `caller` (`callerKey`) before the reply is taken. Answers to some of several
   * requests give a new elicitation for the others; a decline or cancel completes with no answers.
   */
  check(
    tool: string,
    reply: ElicitationReply,
    call: ElicitingCall,
    caller: string,
  ): Promise<ElicitationCheck> {
    try {
      const binding = bindingOf(call);
      const payload = this.signer.verify(reply.state, tool, binding);
      linkToFirstRound(payload.trace);
      const checked = this.answered(tool, reply, payload, binding);
      return Promise.resolve(mapMaybe(this.use(payload, caller), () => checked));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** Records the state's nonce as used; throws `invalid_params` when it was used already. */
  private use(payload: ElicitationStatePayload, caller: string): MaybePromise<void> {
    if (!this.nonces) {
      throw new McpLiteError(
        'invalid_params',
        'This server takes no elicitation answers: it has no store for used elicitation states',
        { reason: 'no_nonce_store' },
      );
    }
    return mapMaybe(this.nonces.use(payload.nonce, payload.exp, caller), (fresh) => {
      if (!fresh) {
        throw new McpLiteError(
          'invalid_params',
          'Invalid elicitation state (already used): each answer is good for one call; call the tool again to be asked anew',
          { reason: 'already_used' },
        );
      }
    });
  }

  /** A verified reply as the handler's answers, or a new elicitation for the requests still open. */
  private answered(
    tool: string,
    reply: ElicitationReply,
    payload: ElicitationStatePayload,
    binding: ElicitationBinding,
  ): ElicitationCheck {
    const action = reply.action ?? 'accept';
    if (!ELICITATION_ACTIONS.includes(action)) {
      throw new McpLiteError(
        'invalid_params',
        'Invalid elicitation action: must be accept, decline or cancel',
        {
          errors: [{ field: 'action', message: 'must be accept, decline or cancel' }],
        },
      );
    }
    if (action !== 'accept') return { complete: declinedAnswers(action, payload.context) };
    const answers = reply.answers ?? {};
    if (!isObject(answers)) {
      throw new McpLiteError('invalid_params', 'Invalid elicitation answers: must be an object');
    }
    if (payload.requests === undefined) {
      const keys = Object.keys(answers);
      if (reply.keyed && keys.length > 1) {
        throw new McpLiteError(
          'invalid_params',
          `Invalid elicitation answers: '${keys[1]!.slice(0, 64)}' is not a requested input`,
          { errors: [{ field: keys[1]!.slice(0, 64), message: 'is not a requested input' }] },
        );
      }
      const value = reply.keyed ? (Object.values(answers)[0] ?? {}) : answers;
      if (!isObject(value)) {
        throw new McpLiteError('invalid_params', 'Invalid elicitation answers: must be an object');
      }
      const validate = this.validator(payload.schema ?? {}, tool);
      return {
        complete: {
          action,
          answers: validate(value, 'elicitation answers') as Record<string, unknown>,
          context: payload.context,
        },
      };
    }
    const requests = payload.requests;
    const merged: Record<string, unknown> = { ...payload.answers };
    const problems: FieldProblem[] = [];
    for (const [name, value] of Object.entries(answers)) {
      const request = Object.hasOwn(requests, name) ? requests[name] : undefined;
      if (!request) {
        problems.push({ field: name, message: 'is not a requested input' });
        continue;
      }
      try {
        merged[name] = this.validator(request.schema, tool)(value, `answer "${name}"`);
      } catch (err) {
        problems.push(...prefixed(name, err));
      }
    }
    if (problems.length > 0) {
      const first = problems[0]!;
      throw new McpLiteError(
        'invalid_params',
        `Invalid elicitation answers: '${first.field}' ${first.message}`,
        {
          errors: problems.slice(0, MAX_REPORTED_PROBLEMS),
        },
      );
    }
    if (Object.keys(requests).every((name) => Object.hasOwn(merged, name))) {
      return { complete: { action, answers: merged, context: payload.context } };
    }
    return { reask: this.ask(tool, requests, merged, payload.message, payload.context, binding) };
  }

  /** A multi-request outcome for the requests not answered yet, with every request and answer signed in. */
  private ask(
    tool: string,
    requests: Requests,
    answers: Record<string, unknown>,
    message: string | undefined,
    context: unknown,
    binding: ElicitationBinding,
  ): ElicitationOutcome {
    const open: Record<string, ElicitationRequestOutcome> = {};
    const properties: Record<string, JsonSchema> = {};
    for (const [name, r] of Object.entries(requests)) {
      if (Object.hasOwn(answers, name)) continue;
      open[name] = { message: r.message, requestedSchema: r.schema };
      properties[name] = r.schema;
    }
    const state = this.signer.sign({
      tool,
      requests,
      ...(message !== undefined ? { message } : {}),
      ...(Object.keys(answers).length > 0 ? { answers } : {}),
      context,
      ...binding,
      trace: elicitationTrace(),
    });
    return {
      type: 'elicitation',
      message:
        message ??
        Object.values(open)
          .map((r) => r.message)
          .join(' '),
      // No `required`: answering only some requests is allowed (the others are asked again).
      requestedSchema: { type: 'object', properties },
      state,
      requests: open,
    };
  }

  /** A validator of exactly the requested schema: keys it does not name are refused (see `closed`). */
  private validator(schema: JsonSchema, tool: string): Validator {
    const key = JSON.stringify(schema);
    let validate = this.validators.get(key);
    if (!validate) {
      validate = compileValidator(closed(schema), `the elicitation of tool "${tool}"`);
      if (this.validators.size >= MAX_CACHED_VALIDATORS) this.validators.clear();
      this.validators.set(key, validate);
    }
    return validate;
  }
}

/**
 * The schema with `additionalProperties: false` wherever it lists properties and says nothing of others. An
 * answer carries only what was asked: a key the form did not ask for would otherwise reach the handler unchecked
 * (and could overwrite a value the handler took from its arguments, skipping that field's format check).
 * Requested schemas are flat forms (MCP's elicitation schema is one level of primitives), so the top level and
 * the object-valued properties are what is closed.
 */
function closed(schema: JsonSchema): JsonSchema {
  if (!isObject(schema.properties)) return schema;
  const properties: Record<string, unknown> = {};
  for (const [name, sub] of Object.entries(schema.properties)) {
    properties[name] = isObject(sub) ? closed(sub) : sub;
  }
  return schema.additionalProperties === undefined && schema.unevaluatedProperties === undefined
    ? { ...schema, properties, additionalProperties: false }
    : { ...schema, properties };
}

/** What a state is bound to: digests, so the state shows neither the arguments nor the principal's id. */
function bindingOf(call: ElicitingCall): ElicitationBinding {
  return {
    args: jsonDigest(call.arguments),
    principal: call.principal ? jsonDigest(call.principal.id) : null,
  };
}

/** A request's validation problems with its name in front of each field (`email.address`). */
function prefixed(name: string, err: unknown): FieldProblem[] {
  if (!(err instanceof McpLiteError) || !Array.isArray(err.data?.errors)) throw err;
  return (err.data.errors as FieldProblem[]).map((p) => ({
    ...p,
    field: p.field === '(value)' ? name : `${name}.${p.field}`,
  }));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
