/**
 * One server behind a real authorization server (oidc-provider), for the suites on how a promise is reached
 * (test/cross-binding/promise-reach.test.ts, test/cross-binding/chain-every-operation.test.ts): long-running tools (one held until cancelled,
 * one needing a scope, one hidden by `visibleTools`), an audit middleware that records every operation with the
 * error it ended in, and a middleware that refuses `redeem` and `cancel` of the tokens in `blocked`. Principal A
 * is the machine client (JWT), principal B the opaque client (introspected); MCP tasks are asked over raw HTTP on
 * the stateless revision.
 */
import {
  createServer,
  defineTool,
  McpLiteError,
  type Middleware,
  oauthResourceServer,
  visibleTools,
} from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import type { BindingAdapter, Called, Reply } from './cross-binding-shape.js';
import { freePort } from './free-port.js';
import { type OidcIssuer, OPAQUE_CLIENT, RESOURCE_SERVER_CLIENT, startOidcIssuer } from './oidc-issuer.js';

/** One operation as the audit middleware saw it: what core handed it, and the error code it ended in. */
export interface Audited {
  method: string;
  name: string | undefined;
  arguments: unknown;
  error?: string;
}

/** The running fixture. */
export interface ReachFixture {
  running: RunningServer;
  /** Every operation, in order, as the audit middleware saw it. */
  audit: Audited[];
  /** Tokens whose `redeem` and `cancel` the refusing middleware refuses. */
  blocked: Set<string>;
  /** Principal A with every scope, A with `tools:read` only (so it lacks the scope and the hidden tool), B. */
  tokens: { a: string; aRead: string; b: string };
  /**
   * Calls `name` through `binding`'s real client with `token`: the reply and the promise token it carried. What the
   * client throws (the SDK's Streamable HTTP transport throws an HTTP 403) is an error reply.
   */
  call(binding: BindingAdapter, token: string, name: string, args?: Record<string, unknown>): Promise<Called>;
  /** A stateless MCP request (raw HTTP) declaring the tasks extension, with `token`. */
  mcp(method: string, params: Record<string, unknown>, token: string): Promise<McpReply>;
  close(): Promise<void>;
}

/** An MCP reply as sent: its HTTP status and its result or error. */
export interface McpReply {
  status: number;
  result?: any;
  error?: { code: number; message: string; data?: any };
}

const audit: Middleware = async (op, next) => {
  const entry: Audited = { method: op.method, name: op.name, arguments: op.arguments };
  seen.push(entry);
  try {
    return await next();
  } catch (err) {
    entry.error = err instanceof McpLiteError ? err.code : String(err);
    throw err;
  }
};
let seen: Audited[] = [];
const blocked = new Set<string>();
const refuseBlocked: Middleware = (op, next) => {
  const promise = op.arguments?.promise;
  if (
    op.method === 'tools/call' &&
    (op.name === 'redeem' || op.name === 'cancel') &&
    blocked.has(promise as string)
  )
    throw new McpLiteError('forbidden', 'This promise is blocked');
  return next();
};

/** Held until cancelled: a promise that stays pending. */
const hold = defineTool({
  name: 'hold',
  longRunning: { estimatedMs: 60_000 },
  handler: (_args, ctx) =>
    new Promise((_resolve, reject) => {
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
    }),
});
const exportDocuments = defineTool({
  name: 'export_documents',
  auth: { scopes: ['documents:export'] },
  longRunning: { estimatedMs: 1_000 },
  handler: async () => ({ exported: 3 }),
});
/** Seen only by a caller whose token carries `reports:write`. */
const secretJob = defineTool({
  name: 'secret_job',
  longRunning: { estimatedMs: 1_000 },
  handler: async () => ({ secret: 42 }),
});
const echo = defineTool({
  name: 'echo',
  inputSchema: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
  handler: (args: { message: string }) => ({ echo: args.message }),
});

/** Starts the issuer and the server (every binding: MCP-lite HTTP, gRPC, Webtools, MCP). */
export async function startReachFixture(): Promise<ReachFixture & { issuer: OidcIssuer }> {
  const issuer = await startOidcIssuer();
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  seen = [];
  blocked.clear();
  const server = createServer({
    tools: [hold, exportDocuments, secretJob, echo],
    auth: oauthResourceServer({
      issuer: issuer.issuer,
      resource,
      introspection: { endpoint: issuer.introspectionEndpoint, ...RESOURCE_SERVER_CLIENT },
    }),
    middleware: [
      audit,
      refuseBlocked,
      visibleTools(
        (tool, caller) =>
          tool.name !== 'secret_job' || (caller.principal?.scopes ?? []).includes('reports:write'),
      ),
    ],
  });
  const running = await serve(server, { port, host: '127.0.0.1', grpcPort: 0 });
  const all = 'tools:read documents:export reports:write';
  const [a, aRead, b] = await Promise.all([
    issuer.clientCredentialsToken({ resource, scope: all }),
    issuer.clientCredentialsToken({ resource, scope: 'tools:read' }),
    issuer.clientCredentialsToken({ resource, scope: all, client: OPAQUE_CLIENT }),
  ]);
  return {
    issuer,
    running,
    audit: seen,
    blocked,
    tokens: { a, aRead, b },
    async call(binding, token, name, args = {}) {
      const session = binding.open({ running, server, token });
      try {
        return await session.call(name, args);
      } catch (err) {
        return { reply: { kind: 'error', class: 'other', detail: { thrown: String(err) } } as Reply };
      } finally {
        session.close();
      }
    },
    async mcp(method, params, token) {
      const res = await fetch(resource, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': method,
          'mcp-name': String(params.name ?? params.taskId),
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method,
          params: {
            ...params,
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientCapabilities': {
                extensions: { 'io.modelcontextprotocol/tasks': {} },
              },
            },
          },
        }),
      });
      return { status: res.status, ...((await res.json()) as Omit<McpReply, 'status'>) };
    },
    async close() {
      await running.close(500);
      await issuer.close();
    },
  };
}
