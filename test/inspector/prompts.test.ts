/**
 * The inspector's local API lists prompts and renders one, over a real socket, for every kind of target: MCP-lite
 * HTTP spoken directly (over the network, and in process as `serve({ inspector })` mounts it), the universal
 * client's bindings (gRPC, MCP over gRPC, MCP over Streamable HTTP, MCP over stdio), a target still connecting
 * (`mcplite inspect`), and a wire without prompts (Webtools). Each answers what the server itself renders.
 */
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { listenNode, type NodeListening } from '../../src/adapters/node.js';
import { createServer } from '../../src/create-server.js';
import { createInspector, type InspectorTarget } from '../../src/inspector/index.js';
import { deferredTarget } from '../../src/inspector/targets/deferred.js';
import { inspectorTarget } from '../../src/inspector/targets/index.js';
import { type RunningServer, serve } from '../../src/serve.js';
import { send } from './inspector.fixtures.js';

const server = createServer({ ...serverOptions, tools });
let demo: RunningServer;

beforeAll(async () => {
  demo = await serve(server, { port: 0, grpcPort: 0, inspector: true });
});
afterAll(async () => {
  await demo?.close(500);
});

const ARGS = { document_id: 'doc_002' };
const STDIO = `${process.execPath} --import tsx ${fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url))} serve --demo --stdio`;

/** What the server itself lists and renders, as JSON carries it. */
async function expected() {
  const signal = new AbortController().signal;
  const rendered = await server.prompts.get('summarize_document', ARGS, { signal, principal: undefined });
  return { prompts: JSON.parse(JSON.stringify(server.prompts.list())), rendered };
}

/** An inspector API on a socket: GET and POST with the per-run token, the reply parsed. */
interface Api {
  get(route: string): Promise<{ status: number; body: any }>;
  post(route: string, body: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

function apiAt(port: number, path: string, token: string, close: () => Promise<void>): Api {
  const parsed = async (reply: Promise<{ status: number; body: string }>) => {
    const { status, body } = await reply;
    return { status, body: JSON.parse(body) };
  };
  return {
    get: (route) => parsed(send(port, 'GET', `${path}api/${route}`, { 'x-mcplite-inspector': token })),
    post: (route, body) =>
      parsed(
        send(
          port,
          'POST',
          `${path}api/${route}`,
          { 'x-mcplite-inspector': token, 'content-type': 'application/json' },
          JSON.stringify(body),
        ),
      ),
    close,
  };
}

/** The inspector of `target` on a socket of its own. */
async function inspecting(target: InspectorTarget): Promise<Api> {
  const inspector = createInspector({ target });
  const listening: NodeListening = await listenNode(inspector.handler, { port: 0 });
  const { port } = listening.server.address() as AddressInfo;
  return apiAt(port, inspector.path, inspector.token, async () => {
    await listening.close();
    await target.close();
  });
}

const KINDS: Array<{ kind: string; binding: string; open: () => Promise<Api> }> = [
  {
    kind: 'MCP-lite HTTP over the network',
    binding: 'mcp-lite-http',
    open: async () => inspecting(await inspectorTarget(`${demo.url}/mcp-lite/v1/`)),
  },
  {
    kind: 'MCP-lite HTTP in process (serve --inspector)',
    binding: 'mcp-lite-http',
    open: async () => {
      const url = new URL(demo.inspectorUrl!);
      return apiAt(Number(url.port), url.pathname, url.searchParams.get('token')!, async () => {});
    },
  },
  {
    kind: 'gRPC through the client',
    binding: 'grpc',
    open: async () => inspecting(await inspectorTarget(`grpc://${demo.grpc!.address}`)),
  },
  {
    kind: 'MCP over gRPC through the client',
    binding: 'mcp-grpc',
    open: async () =>
      inspecting(await inspectorTarget(`grpc://${demo.grpc!.address}/model_context_protocol.Mcp`)),
  },
  {
    kind: 'MCP over Streamable HTTP through the client',
    binding: 'mcp',
    open: async () => inspecting(await inspectorTarget(`${demo.url}/mcp`)),
  },
  {
    kind: 'MCP over stdio through the client',
    binding: 'stdio',
    open: async () => inspecting(await inspectorTarget(STDIO)),
  },
  {
    kind: 'a target still connecting (mcplite inspect)',
    binding: 'mcp',
    open: async () => {
      const connect = () => inspectorTarget(`${demo.url}/mcp`);
      return inspecting(deferredTarget({ binding: 'mcp', target: `${demo.url}/mcp` }, connect(), connect));
    },
  },
];

describe.each(KINDS)('inspector prompts: $kind', ({ binding, open }) => {
  let api: Api;
  beforeAll(async () => {
    api = await open();
  }, 60_000);
  afterAll(async () => {
    await api?.close();
  });

  it('lists the prompts and renders one as the server does, with the exchange', async () => {
    const want = await expected();
    const listed = await api.get('prompts');
    expect(listed.status).toBe(200);
    expect(listed.body.binding).toBe(binding);
    expect(listed.body.prompts).toEqual(want.prompts);
    expect(listed.body.exchange.request).toBeTruthy();

    const rendered = await api.post('prompt', { name: 'summarize_document', arguments: ARGS });
    expect(rendered.status).toBe(200);
    expect(rendered.body.prompt).toEqual(want.rendered);
    expect(rendered.body.elapsedMs).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(rendered.body.exchange.request)).toContain('doc_002');
  });

  it("an unknown prompt or a missing argument is the target's protocol error, shown with the exchange", async () => {
    const unknown = await api.post('prompt', { name: 'summarize_documents', arguments: {} });
    expect(unknown.status).toBe(502);
    expect(JSON.stringify(unknown.body.error)).toMatch(/summarize_document/);
    expect(unknown.body.exchange).toBeTruthy();
    const missing = await api.post('prompt', { name: 'summarize_document' });
    expect(missing.status).toBe(502);
    expect(JSON.stringify(missing.body.error)).toMatch(/document_id/);
  });
});

describe('inspector prompts: bad input and a wire without prompts', () => {
  it('refuses non-string arguments and a missing name with 400, and says Webtools carries no prompts', async () => {
    const api = await inspecting(await inspectorTarget(`${demo.url}/webtools/documents/`));
    try {
      expect((await api.get('prompts')).body.binding).toBe('webtools');
      const none = await api.get('prompts');
      expect(none.status).toBe(200);
      expect(none.body).toMatchObject({ prompts: [], carried: false });
      expect(none.body.error.code).toBe('method_not_found');
      expect(none.body.error.message).toMatch(/webtools/);
      expect((await api.post('prompt', { name: 'x', arguments: { n: 1 } })).status).toBe(400);
      expect((await api.post('prompt', { arguments: {} })).status).toBe(400);
      expect((await api.post('prompt', { name: 'x', arguments: [] })).status).toBe(400);
    } finally {
      await api.close();
    }
  });
});
