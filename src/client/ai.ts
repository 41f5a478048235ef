/**
 * `mcplite/ai`: a server's tools as a Vercel AI SDK tool set (package `ai`, an optional peer dependency).
 */
import type { Tool } from 'ai';
import { type AdapterOptions, callForModel, offeredTools } from './adapter-common.js';
import type { Client } from './client.js';

export type { AdapterOptions } from './adapter-common.js';

/**
 * The tools of a connected client as an AI SDK `ToolSet` keyed by tool name, each with its input schema. Calls
 * are redeemed until they settle, and the AI SDK's abort signal cancels the call (and a promise it made).
 */
export async function toAISDKTools(
  client: Client,
  options: AdapterOptions = {},
): Promise<Record<string, Tool>> {
  // Loaded here, not at the top: `ai` is an optional peer, and importing `mcplite/ai` must not need it.
  const { jsonSchema, tool } = await import('ai');
  const out: Record<string, Tool> = {};
  for (const info of await offeredTools(client, options)) {
    out[info.name] = tool({
      description: info.description,
      inputSchema: jsonSchema<Record<string, unknown>>(info.inputSchema as Parameters<typeof jsonSchema>[0]),
      execute: (input: Record<string, unknown>, { abortSignal }) =>
        callForModel(client, info.name, input, abortSignal, options),
    });
  }
  return out;
}
