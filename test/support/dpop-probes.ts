/**
 * One authenticated request over each binding with whatever `Authorization` / `DPoP` headers a test gives, for the
 * DPoP resource server tests: each probe names the method and URL its request is (what a proof's `htm` and `htu`
 * must say) and reports the status (gRPC statuses mapped to the HTTP ones they stand for), the challenge and the
 * `DPoP-Nonce` the server sent, and the tool's answer.
 */
import { Metadata } from '@grpc/grpc-js';
import { makeClient, structToJson, toolRequest, unary } from './grpc-client.js';
import { connectWs, RefusedUpgrade } from './ws-client.js';

/** What one request came back with. */
export interface DpopProbed {
  status: number;
  challenge?: string | undefined;
  nonce?: string | undefined;
  /** The tool's answer as the binding carries it (its result message). */
  answer?: unknown;
}

/** A binding's one request: `htm` and `htu` are what a proof for it names. */
export interface DpopProbe {
  readonly htm: string;
  readonly htu: string;
  send(headers: Record<string, string>): Promise<DpopProbed>;
}

function headerOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** MCP-lite HTTP: tools/call whoami, one POST. */
export function mcpLiteHttp(origin: string): DpopProbe {
  const htu = `${origin}/mcp-lite/v1/rpc`;
  return {
    htm: 'POST',
    htu,
    async send(headers) {
      const res = await fetch(htu, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'whoami', arguments: {} },
        }),
      });
      const body = (await res.json()) as any;
      return {
        status: res.status,
        challenge: res.headers.get('www-authenticate') ?? undefined,
        nonce: res.headers.get('dpop-nonce') ?? undefined,
        answer: body.result,
      };
    },
  };
}

/** MCP Streamable HTTP: the initialize POST (the request that authenticates like every other). */
export function mcpInitialize(origin: string): DpopProbe {
  const htu = `${origin}/mcp`;
  return {
    htm: 'POST',
    htu,
    async send(headers) {
      const res = await fetch(htu, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
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
      const text = await res.text();
      return {
        status: res.status,
        challenge: res.headers.get('www-authenticate') ?? undefined,
        nonce: res.headers.get('dpop-nonce') ?? undefined,
        answer: res.status === 200 ? text : undefined,
      };
    },
  };
}

/** Webtools: POST `{action, request}` to the webtool. */
export function webtools(origin: string, webtool: string): DpopProbe {
  const htu = `${origin}/webtools/${webtool}/`;
  return {
    htm: 'POST',
    htu,
    async send(headers) {
      const res = await fetch(htu, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ action: 'whoami', request: {} }),
      });
      const body = (await res.json()) as any;
      return {
        status: res.status,
        challenge: res.headers.get('www-authenticate') ?? undefined,
        nonce: res.headers.get('dpop-nonce') ?? undefined,
        answer: body.data,
      };
    },
  };
}

/** A WebSocket endpoint: the upgrade (GET), then tools/call whoami on the socket. `htu` is the ws:// URL. */
export function webSocket(url: string, protocol: 'mcp' | 'mcp-lite'): DpopProbe {
  return {
    htm: 'GET',
    htu: url,
    async send(headers) {
      let client: Awaited<ReturnType<typeof connectWs>>;
      try {
        client = await connectWs(url, { protocol, headers });
      } catch (err) {
        if (!(err instanceof RefusedUpgrade)) throw err;
        return {
          status: err.status,
          challenge: headerOf(err.headers['www-authenticate']),
          nonce: headerOf(err.headers['dpop-nonce']),
        };
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
        const reply = await client.request('tools/call', { name: 'whoami', arguments: {} });
        return { status: reply.error ? 500 : 200, answer: reply.result };
      } finally {
        client.ws.close();
      }
    },
  };
}

const GRPC_STATUS: Record<number, number> = { 16: 401, 7: 403, 8: 429, 14: 503 };

/** gRPC: CallTool whoami, the headers as metadata (`authorization`, `dpop`); `htu` as the call's HTTP/2 request. */
export function grpc(address: string): DpopProbe {
  const client = makeClient(address, 'full');
  return {
    htm: 'POST',
    htu: `http://${address}/mcplite.MCPLite/CallTool`,
    async send(headers) {
      const metadata = new Metadata();
      for (const [name, value] of Object.entries(headers)) metadata.set(name, value);
      const { response, error } = await unary(client, 'CallTool', toolRequest('whoami', {}), { metadata });
      if (error) {
        const text = (key: string) => {
          const v = error.metadata?.get(key)[0];
          return typeof v === 'string' ? v : undefined;
        };
        return {
          status: GRPC_STATUS[error.code] ?? 500,
          challenge: text('www-authenticate'),
          nonce: text('dpop-nonce'),
        };
      }
      return { status: 200, answer: response.result ? structToJson(response.result) : undefined };
    },
  };
}
