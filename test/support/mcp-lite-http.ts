/**
 * Test helpers that speak MCP-lite HTTP with real clients: fetch for requests, eventsource-parser for SSE (the
 * request and SSE helpers are http-harness's).
 */
import { postJson as post } from './http-harness.js';

export { postJson as post, readSse, type SseEvent } from './http-harness.js';

/** A decoded JSON-RPC response. */
export interface RpcResponse {
  jsonrpc: '2.0';
  id: string | number | null;
  result?: Record<string, any>;
  error?: { code: number; message: string; data?: any };
}

/** A tools/call message. */
export function callMessage(
  id: string | number,
  name: string,
  args: unknown,
  extra: Record<string, unknown> = {},
) {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...extra } };
}

/** POSTs a JSON-RPC message and decodes the JSON answer (checking status and content type). */
export async function rpc(
  url: string,
  message: unknown,
  headers: Record<string, string> = {},
): Promise<RpcResponse> {
  const res = await post(url, message, headers);
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  if (!res.headers.get('content-type')?.startsWith('application/json')) {
    throw new Error(`unexpected content type ${res.headers.get('content-type')}`);
  }
  return (await res.json()) as RpcResponse;
}

/** True for an ISO-8601 timestamp that parses. */
export function isIsoTime(value: unknown): boolean {
  return (
    typeof value === 'string' &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(value) &&
    !Number.isNaN(Date.parse(value))
  );
}
