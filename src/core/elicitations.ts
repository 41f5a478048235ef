import { ElicitationSigner, type ElicitationStatePayload } from './elicitation-state.js';
import { McpLiteError } from './errors.js';
import type { ElicitationOutcome, ElicitationRequestOutcome, ElicitRequest } from './outcomes.js';
import {
  compileValidator,
  type FieldProblem,
  type JsonSchema,
  toJsonSchema,
  type Validator,
} from './schema.js';
import type { ElicitationAnswers } from './tool.js';

/** A client's answer to an elicitation, as a binding hands it to core. */
export interface ElicitationReply {
  /** The signed state from the elicitation, unchanged. */
  state: unknown;
  /** The answers: the form's object, or (several requests) an object keyed by request name. */
  answers: unknown;
  /**
   * True when `answers` is keyed by request name even for a single-form elicitation, as on wires that name
   * every input (MCP's `inputResponses`): core then takes the one answer. A binding cannot tell the forms apart
   * itself, since the state is opaque to it.
   */
  keyed?: boolean;
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

  constructor(secret: string | Uint8Array | undefined, ttlMs: number) {
    this.signer = new ElicitationSigner(secret, ttlMs);
  }

  /** The outcome of a handler's `elicit(...)`. Throws (a bug in the tool) on an invalid request name. */
  outcome(tool: string, request: ElicitRequest): ElicitationOutcome {
    if (request.requests === undefined) {
      const requestedSchema = toJsonSchema(request.schema);
      const state = this.signer.sign({ tool, schema: requestedSchema, context: request.context ?? null });
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
    return this.ask(tool, requests, {}, request.message, request.context ?? null);
  }

  /**
   * Checks a reply: the state must be genuine, unexpired and for `tool`, and every answer must fit its schema
   * (-32602 otherwise). Answers to some of several requests give a new elicitation for the others.
   */
  check(tool: string, reply: ElicitationReply): ElicitationCheck {
    const payload = this.signer.verify(reply.state, tool);
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
      return { complete: { answers: merged, context: payload.context } };
    }
    return { reask: this.ask(tool, requests, merged, payload.message, payload.context) };
  }

  /** A multi-request outcome for the requests not answered yet, with every request and answer signed in. */
  private ask(
    tool: string,
    requests: Requests,
    answers: Record<string, unknown>,
    message: string | undefined,
    context: unknown,
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
