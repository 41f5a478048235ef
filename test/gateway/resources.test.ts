/**
 * Issue 28, the parts the first round left out: a proxied upstream's resources (URIs prefixed as `mount` does),
 * resource templates and prompts (`s_name`) are served by the gateway on every binding that serves them, and
 * follow the upstream's list_changed; a remote upstream protected by OAuth (`oauthResourceServer` and a real
 * oidc-provider) is reached with `"oauth"` in the config entry (client credentials from `clientSecretEnv`).
 * Upstreams are real: `@modelcontextprotocol/server-everything` over stdio, mcplite servers on real sockets.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileOAuthStore } from '../../src/cli/token-file.js';
import { type Client, connect } from '../../src/client/index.js';
import { createServer } from '../../src/create-server.js';
import { parseGatewayConfig } from '../../src/gateway/config.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { entrySource } from '../../src/gateway/open-entry.js';
import { openUpstream } from '../../src/gateway/proxy-tools.js';
import { defineTool, oauthResourceServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/serve.js';
import { logLine, run } from '../support/cli-process.js';
import { EVERYTHING } from '../support/everything.js';
import { freePort } from '../support/free-port.js';
import { MACHINE_CLIENT, type OidcIssuer, startOidcIssuer } from '../support/oidc-issuer.js';

/** A gateway over `config` (parsed as `mcplite proxy --config` does), served on every binding. */
async function gatewayOver(config: unknown, env: NodeJS.ProcessEnv = {}) {
  const server = createServer({ name: 'gateway', tools: [] });
  const gateway = new Gateway(server, { minBackoffMs: 50, maxBackoffMs: 200, relistWindowMs: 100 });
  const parsed = config as { mcpServers: Record<string, unknown> };
  const entries =
    Object.keys(parsed.mcpServers).length === 0
      ? []
      : parseGatewayConfig(JSON.stringify(config), { ...process.env, ...env });
  await Promise.all(
    entries.map((entry) =>
      gateway.add(entry.name, entrySource(entry, { baseDir: process.cwd(), stderr: 'ignore' })),
    ),
  );
  const running = await serve(server, { port: 0, host: '127.0.0.1', grpcPort: 0 });
  return {
    server,
    gateway,
    running,
    close: async () => {
      await running.close(500);
      await gateway.close();
    },
  };
}

async function sdkClient(url: string): Promise<SdkClient> {
  const client = new SdkClient({ name: 'test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

async function until<T>(get: () => Promise<T>, ok: (value: T) => boolean, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await get();
    if (ok(value) || Date.now() > end) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a gateway over server-everything (stdio): resources and prompts, namespaced', () => {
  let gw: Awaited<ReturnType<typeof gatewayOver>>;
  beforeAll(async () => {
    gw = await gatewayOver({
      mcpServers: { ev: { command: process.execPath, args: [EVERYTHING, 'stdio'] } },
    });
  }, 60_000);
  afterAll(() => gw?.close());

  it('lists and reads its resources and templates, and renders its prompts, through the MCP SDK client', async () => {
    const sdk = await sdkClient(`${gw.running.url}/mcp`);
    try {
      const { resources } = await sdk.listResources();
      const doc = resources.find((r) => r.uri === 'demo://ev/resource/static/document/architecture.md');
      expect(doc).toMatchObject({ name: 'ev_architecture.md', mimeType: 'text/markdown' });
      expect(resources.every((r) => r.uri.startsWith('demo://ev/'))).toBe(true);

      const read = await sdk.readResource({ uri: doc!.uri });
      expect(read.contents).toHaveLength(1);
      expect(read.contents[0]).toMatchObject({ uri: doc!.uri, mimeType: 'text/markdown' });
      expect(String((read.contents[0] as { text?: string }).text)).toMatch(/^# Everything Server/);

      const { resourceTemplates } = await sdk.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate)).toContain(
        'demo://ev/resource/dynamic/text/{resourceId}',
      );
      const dynamic = await sdk.readResource({ uri: 'demo://ev/resource/dynamic/text/7' });
      expect(dynamic.contents[0]).toMatchObject({ uri: 'demo://ev/resource/dynamic/text/7' });
      expect(String((dynamic.contents[0] as { text?: string }).text)).toContain('7');

      const { prompts } = await sdk.listPrompts();
      expect(prompts.map((p) => p.name)).toEqual(
        expect.arrayContaining(['ev_simple-prompt', 'ev_args-prompt']),
      );
      const args = prompts.find((p) => p.name === 'ev_args-prompt');
      expect(args?.arguments).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'city' })]));
      const rendered = await sdk.getPrompt({ name: 'ev_args-prompt', arguments: { city: 'Lyon' } });
      expect(JSON.stringify(rendered.messages)).toContain('Lyon');

      // Unknown names are the gateway's own spec-shaped errors, not a crash or a hang.
      await expect(sdk.readResource({ uri: 'demo://ev/nothing' })).rejects.toThrow(/not found/i);
      await expect(sdk.getPrompt({ name: 'simple-prompt' })).rejects.toThrow(/not found/i);
    } finally {
      await sdk.close();
    }
  }, 60_000);

  it('serves its prompts on MCP-lite HTTP, and everything to the mcplite client over MCP', async () => {
    const lite = await connect(`${gw.running.url}/mcp-lite/v1/`);
    const mcp = await connect(`${gw.running.url}/mcp`);
    try {
      expect(lite.binding).toBe('mcp-lite-http');
      expect((await lite.listPrompts()).map((p) => p.name)).toContain('ev_simple-prompt');
      const rendered = await lite.getPrompt('ev_simple-prompt');
      expect(rendered.messages[0]).toMatchObject({ role: 'user', content: { type: 'text' } });
      // MCP-lite HTTP carries no resources: said, not an empty list.
      await expect(lite.listResources()).rejects.toMatchObject({ code: 'method_not_found' });

      const contents = await mcp.readResource('demo://ev/resource/dynamic/text/2');
      expect(contents[0]).toMatchObject({ uri: 'demo://ev/resource/dynamic/text/2' });
      expect((await mcp.listResources()).length).toBeGreaterThan(0);
      expect((await mcp.getPrompt('ev_args-prompt', { city: 'Nantes' })).messages.length).toBeGreaterThan(0);
    } finally {
      await lite.close();
      await mcp.close();
    }
  }, 60_000);
});

describe("a gateway follows an upstream's resources and prompts list_changed", () => {
  it('adds and removes a prompt and a resource the upstream adds and removes', async () => {
    const upstream = createServer({
      name: 'up',
      tools: [{ name: 'noop', handler: () => null }],
      prompts: [{ name: 'hello', handler: () => 'hi' }],
      resources: [{ uri: 'note://one', name: 'one', read: () => 'first' }],
    });
    const up = await serve(upstream, { port: 0, host: '127.0.0.1', grpcPort: 0 });
    // The handshake revision: its session carries the upstream's notifications (the stateless one has none).
    const gw = await gatewayOver({ mcpServers: {} });
    await gw.gateway.add(
      'up',
      await openUpstream(`${up.url}/mcp`, { prefix: 'up', connect: { mcpRevision: 'handshake' } }),
    );
    const client: Client = await connect(`${gw.running.url}/mcp`);
    try {
      expect((await client.listPrompts()).map((p) => p.name)).toEqual(['up_hello']);
      expect(await client.readResource('note://up/one')).toEqual([{ uri: 'note://up/one', text: 'first' }]);
      upstream.prompts.add({ name: 'bye', handler: () => 'bye' });
      upstream.resources.add({ uri: 'note://two', name: 'two', read: () => 'second' });
      upstream.prompts.remove('hello');
      const prompts = await until(
        () => client.listPrompts(),
        (list) => list.length === 1 && list[0]!.name === 'up_bye',
      );
      expect(prompts.map((p) => p.name)).toEqual(['up_bye']);
      const resources = await until(
        () => client.listResources(),
        (list) => list.length === 2,
      );
      expect(resources.map((r) => r.uri).sort()).toEqual(['note://up/one', 'note://up/two']);
      expect((await client.getPrompt('up_bye')).messages[0]?.content).toEqual({ type: 'text', text: 'bye' });
    } finally {
      await client.close();
      await gw.close();
      await up.close(500);
    }
  }, 60_000);
});

describe('a remote upstream protected by OAuth, reached with "oauth" in the config', () => {
  let issuer: OidcIssuer;
  let protectedServer: RunningServer;
  let origin: string;
  beforeAll(async () => {
    issuer = await startOidcIssuer();
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    const whoami = defineTool({
      name: 'whoami',
      description: 'Says who called',
      handler: (_args, ctx) => ({ sub: ctx.principal?.sub ?? null }),
    });
    protectedServer = await serve(
      createServer({
        tools: [whoami],
        prompts: [{ name: 'greet', handler: () => 'hello, machine' }],
        auth: oauthResourceServer({ issuer: issuer.issuer, resource: `${origin}/`, scopes: ['tools:read'] }),
      }),
      { port, host: '127.0.0.1', grpcPort: 0 },
    );
  }, 120_000);
  afterAll(async () => {
    await protectedServer?.close(500);
    await issuer?.close();
  });

  it('signs in with client credentials (secret from clientSecretEnv) and serves its tools and prompts', async () => {
    const gw = await gatewayOver(
      {
        mcpServers: {
          sec: {
            url: `${origin}/mcp`,
            oauth: {
              clientId: MACHINE_CLIENT.clientId,
              clientSecretEnv: 'SEC_SECRET',
              issuer: issuer.issuer,
              scope: 'tools:read',
            },
          },
        },
      },
      { SEC_SECRET: MACHINE_CLIENT.clientSecret },
    );
    const sdk = await sdkClient(`${gw.running.url}/mcp`);
    try {
      expect(gw.gateway.statuses().sec).toMatchObject({ state: 'up' });
      const result = await sdk.callTool({ name: 'sec_whoami', arguments: {} });
      expect(result.structuredContent).toEqual({ sub: MACHINE_CLIENT.clientId });
      const rendered = await sdk.getPrompt({ name: 'sec_greet' });
      expect(rendered.messages[0]?.content).toEqual({ type: 'text', text: 'hello, machine' });
    } finally {
      await sdk.close();
      await gw.close();
    }
  }, 60_000);

  it('mcplite proxy --config with "oauth": true says once to sign in, then uses the tokens mcplite login keeps', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mcplite-gw-oauth-'));
    const config = join(home, 'gateway.json');
    const upstream = `${origin}/mcp`;
    writeFileSync(config, JSON.stringify({ mcpServers: { sec: { url: upstream, oauth: true } } }));
    const proxy = run(['proxy', '--config', config, '--port', '0', '--grpc-port', 'off'], {
      XDG_CONFIG_HOME: home,
    });
    try {
      const told = await logLine(
        proxy,
        (e) => e.msg === 'upstream needs a sign-in: run the signIn command; it is retried meanwhile',
      );
      expect(told).toMatchObject({ server: 'sec', signIn: `mcplite login ${upstream}` });
      const line = await logLine(proxy, (e) => e.msg === 'proxy listening');
      // What `mcplite login` leaves: a token for the resource, in the user's token file (0600).
      const token = await issuer.clientCredentialsToken({
        resource: `${origin}/`,
        scope: 'tools:read',
        client: MACHINE_CLIENT,
      });
      await fileOAuthStore(join(home, 'mcplite', 'oauth')).save(new URL(upstream).href, {
        tokens: { access_token: token, token_type: 'Bearer' },
      });
      const client = await connect(String(line.mcp));
      try {
        const tools = await until(
          () => client.listTools(),
          (list) => list.some((t) => t.name === 'sec_whoami'),
          20_000,
        );
        expect(tools.map((t) => t.name)).toContain('sec_whoami');
        expect(await client.call('sec_whoami')).toMatchObject({
          type: 'answer',
          value: { sub: MACHINE_CLIENT.clientId },
        });
        expect((await client.getPrompt('sec_greet')).messages).toHaveLength(1);
      } finally {
        await client.close();
      }
      const signInLines = proxy
        .stderr()
        .split('\n')
        .filter((l) => l.includes('upstream needs a sign-in'));
      expect(signInLines).toHaveLength(1);
      expect(proxy.stderr()).not.toContain(token);
    } finally {
      proxy.child.kill('SIGTERM');
      await proxy.exited;
      rmSync(home, { recursive: true, force: true });
    }
  }, 60_000);

  it('without "oauth" the upstream stays down, refused, and the gateway keeps serving', async () => {
    const gw = await gatewayOver({ mcpServers: { sec: { url: `${origin}/mcp` } } });
    try {
      expect(gw.gateway.toolsOf('sec')).toEqual([]);
      expect(gw.gateway.statuses().sec).toMatchObject({ state: 'reconnecting' });
      expect(String((gw.gateway.statuses().sec as { lastError?: string }).lastError)).toMatch(
        /401|unauth|sign/i,
      );
    } finally {
      await gw.close();
    }
  }, 120_000);
});
