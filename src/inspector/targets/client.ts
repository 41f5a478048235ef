import type { CallOutcome, Client } from '../../client/index.js';
import { McpLiteError } from '../../core/errors.js';
import type { WireTool } from '../../core/tool.js';
import {
  type Exchange,
  type InspectorTarget,
  type TargetCallOptions,
  TargetError,
  type TargetReply,
} from '../target.js';
import { toInspectorOutcome } from './received-outcome.js';

/**
 * The inspector's target for every binding the universal client speaks (gRPC, MCP over Streamable HTTP or stdio,
 * Webtools). The client keeps its wire to itself, so the exchange shown is the client's: the operation it was
 * asked for and the typed outcome it returned (docs/inspector.md says so on the page's behalf).
 */
export function createClientTarget(client: Client): InspectorTarget {
  const shown = (operation: string, fields: Record<string, unknown>) => ({
    via: 'mcplite/client',
    binding: client.binding,
    operation,
    ...fields,
  });

  async function round(
    request: Record<string, unknown>,
    options: TargetCallOptions,
    run: () => Promise<CallOutcome>,
  ): Promise<TargetReply> {
    options.onRequest?.(request);
    const exchange: Exchange = { request };
    try {
      const outcome = await run();
      return reply(outcome, exchange);
    } catch (err) {
      const error = protocolError(err);
      exchange.response = { error };
      return { outcome: { type: 'error', error }, exchange };
    }
  }

  function reply(outcome: CallOutcome, exchange: Exchange): TargetReply {
    const { meta, ...rest } = outcome as CallOutcome & { meta?: Record<string, unknown> };
    exchange.response = plain(rest);
    const result: TargetReply = { outcome: toInspectorOutcome(outcome), exchange, ...(meta ? { meta } : {}) };
    if (outcome.type === 'elicitation') {
      result.continue = (values, options = {}) =>
        round(shown('answer', { values }), options, () =>
          outcome.answer(values as Record<string, unknown>, clientOptions(options)),
        );
    }
    return result;
  }

  return {
    binding: client.binding,
    target: client.target,
    async listTools(options = {}) {
      const request = shown('listTools', {});
      options.onRequest?.(request);
      try {
        const tools = await client.listTools(options.signal ? { signal: options.signal } : {});
        return { tools: tools as WireTool[], exchange: { request, response: { tools } } };
      } catch (err) {
        const error = protocolError(err);
        throw new TargetError(error, { request, response: { error } });
      }
    },
    call: (name, args, options = {}) =>
      round(shown('call', { name, arguments: args }), options, () =>
        client.call(name, args, clientOptions(options)),
      ),
    redeem: (token, options = {}) =>
      round(shown('redeem', { token }), options, () => client.redeem(token, clientOptions(options))),
    cancel: (token, options = {}) =>
      round(shown('cancel', { token }), options, async () => ({
        type: 'answer',
        value: await client.cancel(token, options.signal ? { signal: options.signal } : {}),
      })),
    async listPrompts(options = {}) {
      const request = shown('listPrompts', {});
      options.onRequest?.(request);
      try {
        const prompts = await client.listPrompts(options.signal ? { signal: options.signal } : {});
        return { prompts, exchange: { request, response: { prompts } } };
      } catch (err) {
        const error = protocolError(err);
        throw new TargetError(error, { request, response: { error } });
      }
    },
    async getPrompt(name, args, options = {}) {
      const request = shown('getPrompt', { name, arguments: args });
      options.onRequest?.(request);
      try {
        const prompt = await client.getPrompt(name, args, options.signal ? { signal: options.signal } : {});
        return { prompt, exchange: { request, response: prompt } };
      } catch (err) {
        const error = protocolError(err);
        throw new TargetError(error, { request, response: { error } });
      }
    },
    readResource: (uri, options = {}) =>
      client.readResource(uri, options.signal ? { signal: options.signal } : {}),
    close: () => client.close(),
  };
}

/** One round, as the inspector wants it: no auto-redeem (the page shows the promise and redeems it itself). */
function clientOptions(options: TargetCallOptions) {
  return {
    redeem: false,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onPartial ? { onPartial: options.onPartial } : {}),
  };
}

/** A thrown error as the page shows it: the wire's code where the client kept it, else the error code. */
function protocolError(err: unknown) {
  if (err instanceof McpLiteError) {
    const { wire_code: wire, ...data } = err.data ?? {};
    return {
      code: typeof wire === 'number' || typeof wire === 'string' ? wire : err.code,
      message: err.message,
      ...(Object.keys(data).length > 0 ? { data } : {}),
    };
  }
  return { code: 'client', message: (err as Error)?.message ?? String(err) };
}

/** CallOutcome fields without functions (an elicitation's continuation), for JSON. */
function plain(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => typeof v !== 'function'));
}
