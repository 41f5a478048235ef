/**
 * Where the client's OAuth credentials go, and what it reads: a client secret (or key) is sent only to the
 * authorization server configured with it (`oauth.issuer`), never to the one a malicious resource server names,
 * and is refused without one before any request; with the right issuer the client credentials grant works
 * against a real authorization server (oidc-provider). Every OAuth document is read under a byte bound: an
 * endless protected resource metadata or authorization server metadata fails the sign-in, the reader hanging up.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connect, McpLiteError } from '../../src/client/index.js';
import {
  endlessDocument,
  type Listener,
  startListener,
  startProtectedResource,
  startRecordingIssuer,
} from '../support/hostile-oauth.js';
import { type ProtectedServer, startProtectedServer } from '../support/oauth-protected.js';
import { MACHINE_CLIENT } from '../support/oidc-issuer.js';

let target: ProtectedServer;
const opened: Listener[] = [];

beforeAll(async () => {
  target = await startProtectedServer();
}, 30_000);
afterAll(() => target?.close());
afterEach(async () => {
  await Promise.all(opened.splice(0).map((l) => l.close()));
});

async function listener(start: Promise<Listener>): Promise<Listener> {
  const l = await start;
  opened.push(l);
  return l;
}

const machine = (extra: Record<string, unknown> = {}) => ({
  grant: 'client_credentials' as const,
  clientId: MACHINE_CLIENT.clientId,
  clientSecret: MACHINE_CLIENT.clientSecret,
  scope: 'tools:read',
  ...extra,
});

describe('a confidential client sends its secret only to its configured issuer', () => {
  it('signs in with the client credentials grant at the configured issuer (oidc-provider)', async () => {
    const client = await connect(target.mcp, { oauth: machine({ issuer: target.issuer.issuer }) });
    try {
      expect(await client.call('whoami')).toMatchObject({
        type: 'answer',
        value: { sub: MACHINE_CLIENT.clientId },
      });
    } finally {
      await client.close();
    }
  });

  it('never sends the secret to the authorization server a malicious resource names', async () => {
    const attacker = await listener(startRecordingIssuer());
    const resource = await listener(startProtectedResource(() => [attacker.origin]));
    const failure = await connect(`${resource.origin}/mcp`, {
      oauth: machine({ issuer: [target.issuer.issuer] }),
    }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(McpLiteError);
    expect(failure).toMatchObject({ code: 'unauthenticated', data: { reason: 'issuer_not_configured' } });
    expect((failure as Error).message).toContain(attacker.origin);
    expect(attacker.text()).not.toContain(MACHINE_CLIENT.clientSecret);
    expect(attacker.text()).not.toContain(btoa(`${MACHINE_CLIENT.clientId}:${MACHINE_CLIENT.clientSecret}`));
    expect(attacker.received.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('a key (private_key_jwt) goes nowhere the resource names either', async () => {
    const attacker = await listener(startRecordingIssuer());
    const resource = await listener(startProtectedResource(() => [attacker.origin]));
    const { generateKeyPair, exportPKCS8 } = await import('jose');
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    await expect(
      connect(`${resource.origin}/mcp`, {
        oauth: {
          grant: 'client_credentials',
          clientId: 'keyed',
          privateKey: await exportPKCS8(privateKey),
          issuer: target.issuer.issuer,
        },
      }),
    ).rejects.toMatchObject({ data: { reason: 'issuer_not_configured' } });
    expect(attacker.received.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('refuses a secret or a key without an issuer before any request', async () => {
    const resource = await listener(startProtectedResource(() => [target.issuer.issuer]));
    await expect(connect(`${resource.origin}/mcp`, { oauth: machine() })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/oauth\.issuer/),
    });
    // The authorization code flow of a pre-registered confidential client too.
    await expect(
      connect(`${resource.origin}/mcp`, {
        oauth: { clientId: 'web', clientSecret: 'web-secret', redirectUrl: 'http://127.0.0.1:1/callback' },
      }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
    expect(resource.received).toEqual([]);
  });
});

describe('OAuth documents are read under a bound', () => {
  it('fails the sign-in on endless protected resource metadata, hanging up on it', async () => {
    const endless = endlessDocument();
    const resource = await listener(startProtectedResource(() => [], endless.handler));
    await expect(connect(`${resource.origin}/mcp`, { oauth: {} })).rejects.toMatchObject({
      code: 'unauthenticated',
      message: expect.stringMatching(/larger than 1048576 bytes/),
    });
    await endless.hungUp;
  });

  it('fails the sign-in on endless authorization server metadata, hanging up on it', async () => {
    const endless = endlessDocument();
    const as = await listener(startListener((_req, res) => endless.handler(res)));
    const resource = await listener(startProtectedResource(() => [as.origin]));
    await expect(connect(`${resource.origin}/mcp`, { oauth: {} })).rejects.toMatchObject({
      code: 'unauthenticated',
      message: expect.stringMatching(/larger than 1048576 bytes/),
    });
    await endless.hungUp;
  });
});

describe('the gateway signs in to an upstream with its secret at its configured issuer only', () => {
  it('never sends the secret to the authorization server a malicious upstream names', async () => {
    const { Gateway } = await import('../../src/gateway/gateway.js');
    const { parseGatewayConfig } = await import('../../src/gateway/config.js');
    const { entrySource } = await import('../../src/gateway/open-entry.js');
    const { createServer } = await import('../../src/create-server.js');
    const attacker = await listener(startRecordingIssuer());
    const resource = await listener(startProtectedResource(() => [attacker.origin]));
    const config = {
      mcpServers: {
        evil: {
          url: `${resource.origin}/mcp`,
          oauth: { clientId: 'gw', clientSecretEnv: 'GW_SECRET', issuer: target.issuer.issuer },
        },
      },
    };
    const [entry] = parseGatewayConfig(JSON.stringify(config), { GW_SECRET: MACHINE_CLIENT.clientSecret });
    const gateway = new Gateway(createServer({ name: 'gateway', tools: [] }), {
      minBackoffMs: 50,
      maxBackoffMs: 200,
    });
    try {
      await gateway.add(entry!.name, entrySource(entry!, { baseDir: process.cwd(), stderr: 'ignore' }));
      // Wait (a safety-net bound, not a timing) until the gateway has tried and said why it cannot.
      const lastError = () => (gateway.statuses().evil as { lastError?: string } | undefined)?.lastError;
      for (let i = 0; i < 600 && !lastError(); i++) await new Promise((r) => setTimeout(r, 50));
      expect(lastError()).toMatch(/configured for .* only/);
      expect(attacker.text()).not.toContain(MACHINE_CLIENT.clientSecret);
      expect(attacker.received.filter((r) => r.method === 'POST')).toEqual([]);
    } finally {
      await gateway.close();
    }
  });
});
