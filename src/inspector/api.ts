import { OutboundStream, sseEvent } from '../bindings/common/outbound-stream.js';
import { McpLiteError } from '../core/errors.js';
import type { NeutralRequest, NeutralResponse } from '../core/http.js';
import { randomId } from '../core/random-id.js';
import { type Snippets, snippetsFor } from './snippets.js';
import {
  type InspectorTarget,
  noPrompts,
  type RoundOptions,
  type TargetCallOptions,
  TargetError,
  type TargetReply,
} from './target.js';

/** Bounds of the inspector's local API (it keeps a little state: the elicitations waiting for an answer). */
export interface InspectorApiLimits {
  /** Rounds running at once; one more is refused with 429. Default 16. */
  maxInFlight?: number;
  /** Elicitations kept for their answer. Default 64; one more is refused with 429 until one is answered or expires. */
  maxPendingElicitations?: number;
  /** How long an elicitation waits for its answer, in ms. Default ten minutes. */
  elicitationTtlMs?: number;
}

interface Pending {
  continue: NonNullable<TargetReply['continue']>;
  tool: string;
  expires: number;
}

const MAX_NAME = 256;
const MAX_TOKEN = 1024;
const MAX_WAIT_MS = 30_000;

/**
 * The rounds the page asks for: each answers as an SSE stream of `request` (the raw request, once sent), `partial`
 * (each partial result, as it arrives) and `result` (the outcome, its `_meta`, the raw response, the binding).
 */
export class InspectorApi {
  private readonly pending = new Map<string, Pending>();
  private inFlight = 0;
  private readonly maxInFlight: number;
  private readonly maxPending: number;
  private readonly ttlMs: number;

  constructor(
    private readonly target: InspectorTarget,
    limits: InspectorApiLimits = {},
  ) {
    this.maxInFlight = limits.maxInFlight ?? 16;
    this.maxPending = limits.maxPendingElicitations ?? 64;
    this.ttlMs = limits.elicitationTtlMs ?? 600_000;
  }

  /** The catalog, as JSON (a protocol error is a 502 carrying the error and the exchange). */
  async tools(request: NeutralRequest): Promise<NeutralResponse> {
    try {
      const { tools, exchange } = await this.target.listTools(this.roundOptions(request));
      return json(200, { binding: this.target.binding, tools, exchange });
    } catch (err) {
      if (err instanceof TargetError) {
        return json(502, { binding: this.target.binding, error: err.error, exchange: err.exchange });
      }
      throw err;
    }
  }

  /**
   * The prompts, as JSON; a protocol error is a 502 as for tools. A target that carries no prompts (a wire without
   * them, a server that answers method not found) is no failure of the page's: 200 with an empty list,
   * `carried: false` and the error that says so, so that a page opened on a tools-only server logs no failed load.
   */
  prompts(request: NeutralRequest): Promise<NeutralResponse> {
    return this.promptRound(async (options) => {
      try {
        if (!this.target.listPrompts) throw noPrompts(this.target.binding);
        const { prompts, exchange } = await this.target.listPrompts(options);
        return { prompts, exchange };
      } catch (err) {
        const code = err instanceof TargetError ? err.error.code : undefined;
        if (code !== 'method_not_found' && code !== -32601) throw err;
        const { error, exchange } = err as TargetError;
        return { prompts: [], carried: false, error, exchange };
      }
    }, request);
  }

  /** `{ name, arguments? }` (strings): the prompt rendered, its messages and the exchange, as JSON. */
  prompt(request: NeutralRequest, body: Record<string, unknown>): Promise<NeutralResponse> {
    const name = stringField(body, 'name', MAX_NAME);
    const args = body.arguments ?? {};
    if (!isObject(args) || Object.values(args).some((v) => typeof v !== 'string')) {
      throw new McpLiteError('invalid_params', '"arguments" must be an object of strings');
    }
    return this.promptRound(async (options) => {
      if (!this.target.getPrompt) throw noPrompts(this.target.binding);
      const { prompt, exchange } = await this.target.getPrompt(name, args as Record<string, string>, options);
      return { prompt, exchange };
    }, request);
  }

  /** One prompt exchange: 200 with what `run` gives, or 502 with a protocol error and its exchange. */
  private async promptRound(
    run: (options: RoundOptions) => Promise<Record<string, unknown>>,
    request: NeutralRequest,
  ): Promise<NeutralResponse> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const answer = await run(this.roundOptions(request));
      return json(200, { binding: this.target.binding, ...answer, elapsedMs: elapsed() });
    } catch (err) {
      if (err instanceof TargetError) {
        return json(502, {
          binding: this.target.binding,
          error: err.error,
          exchange: err.exchange,
          elapsedMs: elapsed(),
        });
      }
      throw err;
    }
  }

  /** `{ tool, arguments }`: the call as curl, a `mcplite call` line and client code, connecting to `targetUrl`. */
  snippets(body: Record<string, unknown>, targetUrl: string): Snippets {
    const { tool, args } = callFields(body);
    return snippetsFor(targetUrl, this.target.binding, tool, args);
  }

  /** `{ tool, arguments, stream? }`: one call. */
  call(request: NeutralRequest, body: Record<string, unknown>): NeutralResponse {
    const { tool, args } = callFields(body);
    const stream = body.stream !== false;
    return this.round(request, tool, (options) =>
      this.target.call(tool, args, { ...options, ...(stream ? {} : { onPartial: undefined }) }),
    );
  }

  /** `{ id, values }`: answers an elicitation this API handed out, continuing its call. */
  answer(request: NeutralRequest, body: Record<string, unknown>): NeutralResponse {
    const id = stringField(body, 'id', 64);
    const values = body.values;
    if (!isObject(values)) throw new McpLiteError('invalid_params', '"values" must be an object');
    this.sweep();
    const pending = this.pending.get(id);
    if (!pending)
      throw new McpLiteError('invalid_params', 'Unknown or expired elicitation', { reason: 'unknown' });
    this.pending.delete(id);
    return this.round(request, pending.tool, (options) => pending.continue(values, options));
  }

  /** `{ token, waitMs? }`: redeems a promise once. */
  redeem(request: NeutralRequest, body: Record<string, unknown>): NeutralResponse {
    const token = stringField(body, 'token', MAX_TOKEN);
    const wait = body.waitMs;
    if (
      wait !== undefined &&
      !(Number.isInteger(wait) && (wait as number) >= 0 && (wait as number) <= MAX_WAIT_MS)
    ) {
      throw new McpLiteError('invalid_params', `"waitMs" must be a whole number from 0 to ${MAX_WAIT_MS}`);
    }
    return this.round(request, 'redeem', (options) =>
      this.target.redeem(token, { ...options, ...(wait ? { waitMs: wait as number } : {}) }),
    );
  }

  /** `{ token }`: cancels a promise. */
  cancel(request: NeutralRequest, body: Record<string, unknown>): NeutralResponse {
    const token = stringField(body, 'token', MAX_TOKEN);
    return this.round(request, 'cancel', (options) => this.target.cancel(token, options));
  }

  /** The options of a round for `request`: its signal, its peer, the page's `Authorization`. */
  roundOptions(request: NeutralRequest): RoundOptions {
    const authorization = request.headers.authorization;
    return {
      signal: request.signal,
      ...(request.remoteAddress ? { remoteAddress: request.remoteAddress } : {}),
      ...(authorization ? { headers: { authorization } } : {}),
    };
  }

  private round(
    request: NeutralRequest,
    tool: string,
    run: (options: TargetCallOptions) => Promise<TargetReply>,
  ): NeutralResponse {
    if (this.inFlight >= this.maxInFlight) {
      throw new McpLiteError('resource_exhausted', `Too many calls at once (at most ${this.maxInFlight})`);
    }
    this.inFlight++;
    // The one outbound stream: a page that stops reading is cut off past its bound rather than buffered for.
    const out = new OutboundStream();
    const send = (event: string, data: unknown) => void out.write(sseEvent(event, JSON.stringify(data)));
    const started = performance.now();
    const options: TargetCallOptions = {
      ...this.roundOptions(request),
      onRequest: (raw) => send('request', { binding: this.target.binding, request: raw }),
      onPartial: (data) => send('partial', { data }),
    };
    (async () => run(options))()
      .then((reply) => {
        const { continue: next, ...shown } = reply;
        const id = next ? this.keep(tool, next) : undefined;
        send('result', {
          ...shown,
          binding: this.target.binding,
          elapsedMs: Math.round(performance.now() - started),
          ...(id ? { elicitationId: id } : {}),
          ...(next && !id
            ? { elicitationRefused: `Too many elicitations wait for an answer (at most ${this.maxPending})` }
            : {}),
        });
      })
      .catch((err) => {
        const e =
          err instanceof McpLiteError
            ? err
            : new McpLiteError('internal', (err as Error)?.message ?? String(err));
        send('result', {
          binding: this.target.binding,
          outcome: {
            type: 'error',
            error: { code: e.code, message: e.message, ...(e.data ? { data: e.data } : {}) },
          },
          exchange: { request: null },
          elapsedMs: Math.round(performance.now() - started),
        });
      })
      .finally(() => {
        this.inFlight--;
        out.end();
      });
    return out.response(ROUND_HEADERS);
  }

  /** Keeps an elicitation's continuation for the page's answer; refuses past the bound rather than evicting. */
  private keep(tool: string, next: NonNullable<TargetReply['continue']>): string | undefined {
    this.sweep();
    if (this.pending.size >= this.maxPending) return undefined;
    const id = randomId(16, 'base64url');
    this.pending.set(id, { continue: next, tool, expires: Date.now() + this.ttlMs });
    return id;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, p] of this.pending) if (p.expires <= now) this.pending.delete(id);
  }
}

function callFields(body: Record<string, unknown>): { tool: string; args: Record<string, unknown> } {
  const tool = stringField(body, 'tool', MAX_NAME);
  const args = body.arguments ?? {};
  if (!isObject(args)) throw new McpLiteError('invalid_params', '"arguments" must be an object');
  return { tool, args };
}

function stringField(body: Record<string, unknown>, name: string, max: number): string {
  const value = body[name];
  if (typeof value !== 'string' || value.length === 0 || value.length > max) {
    throw new McpLiteError('invalid_params', `"${name}" must be a string of 1 to ${max} characters`);
  }
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON response. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): NeutralResponse {
  return {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
    body: JSON.stringify(body),
  };
}

/** A round's stream: SSE, never stored (it carries the target's answers). */
const ROUND_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-store',
  'x-accel-buffering': 'no',
};
