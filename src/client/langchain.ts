/**
 * `mcplite/langchain`: a server's tools as LangChain structured tools (`@langchain/core`, an optional peer
 * dependency).
 */
import type { DynamicStructuredTool } from '@langchain/core/tools';
import { type AdapterOptions, callForModel, offeredTools } from './adapter-common.js';
import type { Client } from './client.js';

export type { AdapterOptions } from './adapter-common.js';

/**
 * The tools of a connected client as LangChain `DynamicStructuredTool`s with their JSON Schemas. A tool's answer
 * is its value as text (JSON unless a string), which is what a chat model reads; the run's signal cancels.
 */
export async function toLangChainTools(
  client: Client,
  options: AdapterOptions = {},
): Promise<DynamicStructuredTool[]> {
  // Loaded here, not at the top: `@langchain/core` is an optional peer, and importing the adapter must not need it.
  const { DynamicStructuredTool } = await import('@langchain/core/tools');
  return (await offeredTools(client, options)).map(
    (info) =>
      new DynamicStructuredTool({
        name: info.name,
        description: info.description || info.name,
        schema: info.inputSchema as Record<string, unknown>,
        func: async (input: Record<string, unknown>, _run, config) => {
          const value = await callForModel(client, info.name, input, config?.signal, options);
          return typeof value === 'string' ? value : JSON.stringify(value);
        },
      }),
  );
}
