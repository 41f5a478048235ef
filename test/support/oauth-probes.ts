/**
 * One tool call over each binding with a given bearer token, normalised for the OAuth suite
 * (test/oauth/resource-server.test.ts): the HTTP status the refusal came with (gRPC statuses and JSON-RPC errors on a
 * stream or socket mapped to the HTTP status they stand for), the challenge the server sent, and the answer.
 */
import { Metadata } from '@grpc/grpc-js';
import { makeClient, structToJson, toolRequest, unary } from './grpc-client.js';
import { connectWs, RefusedUpgrade } from './ws-client.js';

/** What one call came back with. */
export interface Probed {
  /** 200 for an answer; 401 / 403 for the refusals (gRPC UNAUTHENTICATED / PERMISSION_DENIED, JSON-RPC -32002 / -32003). */
  status: number;
  /** The `WWW-Authenticate` challenge (the header, or on a stream or socket the error's data). */
  challenge?: string | undefined;
  /** The tool's answer (structured), when it answered. */
  answer?: unknown;
  /** The JSON-RPC error code, when the refusal was a JSON-RPC error. */
  code?: number;
}

/** A binding's way of making the call. */
export type Probe = (token: string | undefined, tool: string) => Promise<Probed>;

const JSON_RPC_STATUS: Record<number, number> = { [-32002]: 401, [-32010]: 401, [-32003]: 403 };
const GRPC_STATUS: Record<number, number> = { 16: 401, 7: 403 };

function auth(token: string | undefined): Record<string, string> {
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
}

function fromJsonRpc(message: any, challenge?: string | null): Probed {
  if (message.error) {
    return {
      status: JSON_RPC_STATUS[message.error.code] ?? 500,
      challenge: challenge ?? message.error.data?.wwwAuthenticate,
      code: message.error.code,
    };
  }
  const r = message.result;
  return { status: 200, answer: r?.structuredContent ?? r?.content ?? r };
}

/** MCP-lite HTTP: one JSON-RPC POST to `<base>rpc`. */
export function mcpLiteHttp(origin: string): Probe {
  return async (token, tool) => {
    const res = await fetch(`${origin}/mcp-lite/v1/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth(token) },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: tool, arguments: {} },
      }),
    });
    const challenge = res.headers.get('www-authenticate');
    const body = (await res.json()) as any;
    if (res.status !== 200) return { status: res.status, challenge: challenge ?? undefined };
    return fromJsonRpc(body, challenge);
  };
}

/** MCP Streamable HTTP: initialize, then the call in that session. */
export function mcpStreamableHttp(origin: string): Probe {
  return async (token, tool) => {
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...auth(token),
    };
    const init = await fetch(`${origin}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'probe', version: '1' },
        },
      }),
    });
    if (init.status !== 200) {
      await init.body?.cancel();
      return { status: init.status, challenge: init.headers.get('www-authenticate') ?? undefined };
    }
    await init.text();
    const session = {
      'mcp-session-id': init.headers.get('mcp-session-id')!,
      'mcp-protocol-version': '2025-06-18',
    };
    const call = await fetch(`${origin}/mcp`, {
      method: 'POST',
      headers: { ...headers, ...session },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: tool, arguments: {} },
      }),
    });
    const challenge = call.headers.get('www-authenticate');
    const body = (await call.json()) as any;
    if (call.status !== 200) return { status: call.status, challenge: challenge ?? undefined };
    return fromJsonRpc(body, challenge);
  };
}

/** Webtools: POST `{action, request}` to the webtool. */
export function webtools(origin: string, webtool: string): Probe {
  return async (token, tool) => {
    const res = await fetch(`${origin}/webtools/${webtool}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth(token) },
      body: JSON.stringify({ action: tool, request: {} }),
    });
    const body = (await res.json()) as any;
    const challenge = res.headers.get('www-authenticate') ?? undefined;
    return res.status === 200 ? { status: 200, answer: body.data } : { status: res.status, challenge };
  };
}

/** MCP's legacy HTTP+SSE: GET /sse (where authentication happens), then the call, answered on the stream. */
export function legacySse(origin: string): Probe {
  return async (token, tool) => {
    const controller = new AbortController();
    const res = await fetch(`${origin}/sse`, {
      headers: { accept: 'text/event-stream', ...auth(token) },
      signal: controller.signal,
    });
    if (res.status !== 200) {
      await res.body?.cancel();
      return { status: res.status, challenge: res.headers.get('www-authenticate') ?? undefined };
    }
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = '';
    const nextData = async (): Promise<string> => {
      for (;;) {
        const match = /data: (.*)\n/.exec(buffered);
        if (match) {
          buffered = buffered.slice(match.index + match[0].length);
          return match[1]!;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('the SSE stream ended');
        buffered += value;
      }
    };
    try {
      const endpoint = await nextData();
      const post = (message: unknown) =>
        fetch(new URL(endpoint, origin), {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...auth(token) },
          body: JSON.stringify(message),
        });
      const init = {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2024-11-05',
          capabilities: {},
          clientInfo: { name: 'probe', version: '1' },
        },
      };
      await (await post(init)).body?.cancel();
      while (JSON.parse(await nextData()).id !== 0) {}
      await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).body?.cancel();
      await (
        await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: {} } })
      ).body?.cancel();
      for (;;) {
        const message = JSON.parse(await nextData());
        if (message.id === 1) return fromJsonRpc(message);
      }
    } finally {
      controller.abort();
    }
  };
}

/** A WebSocket endpoint: the upgrade (where authentication happens), then the call on the socket. */
export function webSocket(url: string, protocol: 'mcp' | 'mcp-lite'): Probe {
  return async (token, tool) => {
    let client: Awaited<ReturnType<typeof connectWs>>;
    try {
      client = await connectWs(url, { protocol, headers: auth(token) });
    } catch (err) {
      if (!(err instanceof RefusedUpgrade)) throw err;
      const challenge = err.headers['www-authenticate'];
      return { status: err.status, challenge: Array.isArray(challenge) ? challenge[0] : challenge };
    }
    try {
      if (protocol === 'mcp') {
        await client.request('initialize', {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'probe', version: '1' },
        });
        client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      }
      return fromJsonRpc(await client.request('tools/call', { name: tool, arguments: {} }));
    } finally {
      client.ws.close();
    }
  };
}

/** gRPC: CallTool with the token in the `authorization` metadata. */
export function grpc(address: string): Probe {
  const client = makeClient(address, 'full');
  return async (token, tool) => {
    const metadata = new Metadata();
    if (token !== undefined) metadata.set('authorization', `Bearer ${token}`);
    const { response, error } = await unary(client, 'CallTool', toolRequest(tool, {}), { metadata });
    if (error) {
      const challenge = error.metadata?.get('www-authenticate')[0];
      return {
        status: GRPC_STATUS[error.code] ?? 500,
        challenge: typeof challenge === 'string' ? challenge : undefined,
      };
    }
    return { status: 200, answer: response.result ? structToJson(response.result) : response };
  };
}
