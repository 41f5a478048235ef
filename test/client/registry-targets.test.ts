/**
 * A registry entry (the MCP registry's `server.json`) as where a connection starts, over real sockets and real
 * processes: the client's `connect()`, the CLI and a gateway's `"registry"` entry take an entry, served over HTTP
 * or kept as a file, and reach the server it names. A remote comes first, with the headers it declares (here a
 * bearer token the real upstream checks); a package is run (npx, over stdio) only when the caller allowed it, with
 * the environment variables and arguments the entry declares. What cannot be started is refused by name.
 */

import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/index.js';
import { isRegistryTarget } from '../../src/client/registry-target.js';
import { REGISTRY_SERVER_SCHEMA } from '../../src/core/discovery/registry-server-schema.js';
import { bearerAuth, createServer, defineTool } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { run } from '../support/cli-process.js';
import { connectRefusal } from '../support/connect-refusal.js';
import { DISCOVERY_SPEC } from '../support/discovery-schemas.js';
import { EVERYTHING } from '../support/everything.js';
import { overSdkClient, startGateway } from '../support/gateway-in-process.js';

const SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

/** An entry valid against the registry schema, with these remotes and packages. */
function entry(parts: { remotes?: unknown[]; packages?: unknown[] }): Record<string, unknown> {
  return {
    $schema: SCHEMA,
    name: 'io.github.example/billing',
    description: 'Invoices and payments',
    version: '1.2.0',
    ...parts,
  };
}

const refusal = connectRefusal;

describe('a registry entry as a target', () => {
  let upstream: RunningServer;
  let documents: Server;
  let docs = '';
  let dir = '';
  const pages: Record<string, string> = {};

  beforeAll(async () => {
    // The real upstream refuses a call without the token the entry's remote header carries.
    upstream = await serve(
      createServer({
        name: 'billing',
        tools: [defineTool({ name: 'invoice_total', description: 'Totals an invoice', handler: () => 42 })],
        authenticate: bearerAuth(['s3cret']),
      }),
      { port: 0, grpc: false },
    );
    const port = new URL(upstream.url).port;
    const remote = {
      type: 'streamable-http',
      url: `http://127.0.0.1:${port}/{path}`,
      variables: { path: { description: 'The endpoint', default: 'mcp' } },
      headers: [
        {
          name: 'Authorization',
          value: 'Bearer {api_key}',
          isRequired: true,
          isSecret: true,
          variables: { api_key: { isRequired: true, isSecret: true } },
        },
      ],
    };
    pages['/remote/server.json'] = JSON.stringify(entry({ remotes: [remote] }));
    pages['/invalid/server.json'] = JSON.stringify({ $schema: SCHEMA, name: 'no-slash', version: '1' });
    pages['/sse-only/server.json'] = JSON.stringify(
      entry({ remotes: [{ type: 'sse', url: `${upstream.url}/sse` }] }),
    );
    pages['/huge/server.json'] = JSON.stringify(entry({ remotes: [remote] })).replace(
      '"Invoices and payments"',
      `"${'x'.repeat(300 * 1024)}"`,
    );
    documents = createHttpServer((req, res) => {
      const page = pages[req.url ?? ''];
      res.writeHead(page ? 200 : 404, { 'content-type': page ? 'application/json' : 'text/plain' });
      res.end(page ?? 'not found');
    });
    await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
    docs = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;

    // A project with an npm package installed, as `npx` finds one without the registry: its server (the
    // official "everything" server over stdio) starts only when given the variable and the argument the entry declares.
    dir = mkdtempSync(join(tmpdir(), 'mcplite-registry-'));
    const pkg = join(dir, 'node_modules/registry-demo');
    mkdirSync(join(pkg, 'bin'), { recursive: true });
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'project', version: '1.0.0', dependencies: { 'registry-demo': '1.0.0' } }),
    );
    writeFileSync(
      join(pkg, 'package.json'),
      JSON.stringify({ name: 'registry-demo', version: '1.0.0', bin: { 'registry-demo': 'bin/server.mjs' } }),
    );
    writeFileSync(
      join(pkg, 'bin/server.mjs'),
      [
        '#!/usr/bin/env node',
        "if (process.env.DEMO_KEY !== 'k1' || process.argv[2] !== 'stdio') {",
        "  console.error('registry-demo: DEMO_KEY and the transport argument are needed');",
        '  process.exit(3);',
        '}',
        `await import(${JSON.stringify(pathToFileURL(EVERYTHING).href)});`,
      ].join('\n'),
    );
    chmodSync(join(pkg, 'bin/server.mjs'), 0o755);
    mkdirSync(join(dir, 'node_modules/.bin'));
    symlinkSync('../registry-demo/bin/server.mjs', join(dir, 'node_modules/.bin/registry-demo'));
    writeFileSync(
      join(dir, 'server.json'),
      JSON.stringify(
        entry({
          packages: [
            {
              registryType: 'npm',
              identifier: 'registry-demo',
              version: '1.0.0',
              transport: { type: 'stdio' },
              packageArguments: [{ type: 'positional', valueHint: 'transport', isRequired: true }],
              environmentVariables: [{ name: 'DEMO_KEY', isRequired: true, isSecret: true }],
            },
          ],
        }),
      ),
    );
  });
  afterAll(async () => {
    await upstream?.close(200);
    await new Promise((resolve) => documents?.close(resolve));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** What a package launch needs here: the project's directory, and npx kept off the network. */
  const launch = () => ({
    allowPackageLaunch: true,
    cwd: dir,
    registryInputs: { transport: 'stdio' },
    env: { DEMO_KEY: 'k1', npm_config_offline: 'true' },
    stderr: 'ignore' as const,
  });

  it('the schema the client checks entries with is the published one, and the examples pass as they should', () => {
    const published = JSON.parse(
      readFileSync(join(DISCOVERY_SPEC, 'registry-server-json/server.schema.json'), 'utf8'),
    );
    expect(REGISTRY_SERVER_SCHEMA).toEqual(published);
    expect(isRegistryTarget(`${docs}/remote/server.json`)).toBe(true);
    expect(isRegistryTarget('./servers/billing.server.json')).toBe(true);
    expect(isRegistryTarget('node server.json')).toBe(false);
    expect(isRegistryTarget(`${docs}/mcp`)).toBe(false);
  });

  it("connect() takes an entry's URL and calls its remote with the header it declares, filled from the inputs", async () => {
    const missing = await refusal(`${docs}/remote/server.json`);
    expect(missing.code).toBe('unavailable');
    expect(missing.message).toContain('needs a value for {api_key}');
    expect(missing.message).not.toContain('s3cret');
    const client = await connect(`${docs}/remote/server.json`, { registryInputs: { api_key: 's3cret' } });
    try {
      expect((await client.listTools()).map((t) => t.name)).toEqual(['invoice_total']);
      expect(await client.call('invoice_total')).toMatchObject({ type: 'answer', value: 42 });
    } finally {
      await client.close();
    }
    // A caller's own token stands for the declared Authorization header.
    const withToken = await connect(`${docs}/remote/server.json`, { token: 's3cret' });
    await withToken.close();
  });

  it('refuses what cannot be started, by name', async () => {
    const invalid = await refusal(`${docs}/invalid/server.json`);
    expect(invalid.code).toBe('invalid_params');
    expect(invalid.message).toContain('is not valid');
    expect((await refusal(`${docs}/sse-only/server.json`)).message).toContain(
      'sse remote is not a transport',
    );
    expect((await refusal(`${docs}/huge/server.json`)).message).toContain('larger than 262144 bytes');
    expect((await refusal(`${docs}/missing/server.json`)).message).toContain('HTTP 404');
    expect((await refusal(join(dir, 'none', 'server.json'))).message).toContain('could not be read');
  });

  it('runs a package only when allowed, with the variables and arguments the entry declares', async () => {
    const file = join(dir, 'server.json');
    expect((await refusal(file)).message).toContain('only when allowed (allowPackageLaunch');
    const noKey = await refusal(file, { ...launch(), env: { npm_config_offline: 'true' } });
    expect(noKey.message).toContain('needs the environment variable DEMO_KEY');
    const noArg = await refusal(file, { ...launch(), registryInputs: {} });
    expect(noArg.message).toContain('needs the argument transport');
    const client = await connect(file, launch());
    try {
      expect(client.binding).toBe('stdio');
      const tools = (await client.listTools()).map((t) => t.name);
      expect(tools).toContain('echo');
      expect(await client.call('echo', { message: 'from the registry' })).toMatchObject({ type: 'answer' });
    } finally {
      await client.close();
    }
  });

  it('mcplite tools takes an entry, and --allow-package-launch runs its package', async () => {
    const listed = run(['tools', `${docs}/remote/server.json`, '--input', 'api_key=s3cret']);
    expect(await listed.exited, listed.stderr()).toBe(0);
    expect(listed.stdout()).toContain('invoice_total');
    const refused = run(['tools', join(dir, 'server.json')], { DEMO_KEY: 'k1' });
    expect(await refused.exited).not.toBe(0);
    expect(refused.stderr()).toContain('--allow-package-launch');
    const launched = run(
      ['tools', join(dir, 'server.json'), '--allow-package-launch', '--input', 'transport=stdio'],
      { DEMO_KEY: 'k1', npm_config_offline: 'true' },
      dir,
    );
    expect(await launched.exited, launched.stderr()).toBe(0);
    expect(launched.stdout()).toContain('echo');
  });

  it('a gateway entry "registry" serves the tools of a remote entry and of a launched package', async () => {
    const gw = await startGateway({
      mcpServers: {
        billing: { registry: `${docs}/remote/server.json`, inputs: { api_key: 's3cret' } },
        demo: {
          registry: join(dir, 'server.json'),
          allowPackageLaunch: true,
          cwd: dir,
          inputs: { transport: 'stdio' },
          env: { DEMO_KEY: 'k1', npm_config_offline: 'true' },
        },
      },
    });
    await overSdkClient(gw, 'registry-entry', async (mcp) => {
      const names = (await mcp.listTools()).tools.map((t) => t.name);
      expect(names).toContain('billing_invoice_total');
      expect(names).toContain('demo_echo');
      const called = await mcp.callTool({ name: 'billing_invoice_total', arguments: {} });
      expect(JSON.stringify(called.content)).toContain('42');
    });
  });
});
