/**
 * Test helpers that speak MCP-lite HTTP with real clients: fetch for requests, eventsource-parser for SSE.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** A decoded JSON-RPC response. */
export interface RpcResponse {
  jsonrpc: '2.0';
  id: string | number | null;
  result?: Record<string, any>;
  error?: { code: number; message: string; data?: any };
}

/** One SSE event with its JSON data parsed. */
export interface SseEvent {
  event: string;
  data: any;
}

/** POSTs a JSON body (given as an object, or as text to send exactly). */
export function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
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

/**
 * Reads a whole SSE response with eventsource-parser, calling `onEvent` as each event arrives (so a test can
 * act mid-stream), and resolves with every event once the server ends the stream.
 */
export async function readSse(res: Response, onEvent: (e: SseEvent) => void = () => {}): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      const e = { event: message.event ?? 'message', data: JSON.parse(message.data) };
      events.push(e);
      onEvent(e);
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    parser.feed(decoder.decode(chunk, { stream: true }));
  }
  return events;
}

/** True for an ISO-8601 timestamp that parses. */
export function isIsoTime(value: unknown): boolean {
  return (
    typeof value === 'string' &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(value) &&
    !Number.isNaN(Date.parse(value))
  );
}
