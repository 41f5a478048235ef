/**
 * Liveness and readiness (issue 10, operations) over real sockets: `GET /healthz` always 200 with the pid,
 * `GET /readyz` following a readiness check that the test toggles (200, 503 with the reason, 200 again), both
 * answered without the bearer token the bindings require, and the gRPC health service following the same check.
 */
import { credentials, loadPackageDefinition } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { bearerAuth, createServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';

let running: RunningServer;
let ready = true;
let checks = 0;
let checkMs = 0;

beforeAll(async () => {
  const server = createServer({ tools, ...serverOptions, authenticate: bearerAuth(['secret']) });
  running = await serve(server, {
    port: 0,
    grpcPort: 0,
    readinessPollMs: 100,
    readiness: async () => {
      checks++;
      if (checkMs > 0) await new Promise((r) => setTimeout(r, checkMs));
      if (!ready) throw new Error('state store unreachable');
    },
  });
});
afterAll(() => running.close(1000));

/** A GET on a fresh connection (no keep-alive), as a probe makes it. */
async function get(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${running.url}${path}`, { headers: { connection: 'close' } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

type HealthClient = {
  Check(req: { service: string }, cb: (err: Error | null, res: { status: string }) => void): void;
  close(): void;
};

function healthClient(): HealthClient {
  const def = loadSync(healthProtoPath, { keepCase: true, enums: String, defaults: true });
  const pkg = loadPackageDefinition(def) as unknown as {
    grpc: { health: { v1: { Health: new (address: string, creds: unknown) => HealthClient } } };
  };
  return new pkg.grpc.health.v1.Health(running.grpc!.address, credentials.createInsecure());
}

function check(client: HealthClient, service: string): Promise<string> {
  return new Promise((resolve, reject) =>
    client.Check({ service }, (err, res) => (err ? reject(err) : resolve(res.status))),
  );
}

/** Polls until `read` returns `expected` (the gRPC status follows readiness within a poll). */
async function eventually<T>(read: () => Promise<T>, expected: T, withinMs = 3000): Promise<T> {
  const deadline = Date.now() + withinMs;
  let last = await read();
  while (last !== expected && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    last = await read();
  }
  return last;
}

describe('GET /healthz and /readyz', () => {
  it('healthz answers 200 with the pid, without the bearer token the bindings need', async () => {
    const { status, body } = await get('/healthz');
    expect(status).toBe(200);
    expect(body).toEqual({ status: 'ok', pid: process.pid });
    // The bindings still require the token.
    const tools = await fetch(`${running.url}/mcp-lite/v1/tools`, { method: 'POST' });
    expect(tools.status).toBe(401);
  });

  it('readyz follows the readiness check: 200, then 503 with the reason, then 200', async () => {
    ready = true;
    expect(await get('/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
    ready = false;
    expect(await get('/readyz')).toEqual({
      status: 503,
      body: { status: 'unavailable', reason: 'state store unreachable' },
    });
    // Liveness does not depend on readiness.
    expect((await get('/healthz')).status).toBe(200);
    ready = true;
    expect(await get('/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
  });

  it('answers HEAD without a body and refuses other methods with 405', async () => {
    const head = await fetch(`${running.url}/readyz`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await fetch(`${running.url}/healthz`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('a burst of probes shares one readiness check', async () => {
    checkMs = 200;
    try {
      const before = checks;
      const answers = await Promise.all(Array.from({ length: 20 }, () => get('/readyz')));
      expect(answers.every((a) => a.status === 200)).toBe(true);
      expect(checks - before).toBeLessThan(5);
    } finally {
      checkMs = 0;
    }
  });

  it('a hanging check is answered 503 (timed out), not hung', async () => {
    const server = createServer({ tools, ...serverOptions });
    const slow = await serve(server, { port: 0, readiness: () => new Promise<void>(() => {}) });
    try {
      const started = Date.now();
      const res = await fetch(`${slow.url}/readyz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ status: 'unavailable', reason: 'readiness check timed out' });
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await slow.close(500);
    }
  });

  it('the Host guard still applies to the health routes', async () => {
    const res = await new Promise<number>((resolve, reject) => {
      import('node:http').then(({ request }) => {
        const req = request(`${running.url}/healthz`, { headers: { host: 'evil.example' } }, (r) => {
          r.resume();
          resolve(r.statusCode!);
        });
        req.on('error', reject);
        req.end();
      }, reject);
    });
    expect(res).toBe(403);
  });
});

describe('gRPC health follows readiness', () => {
  it('SERVING, then NOT_SERVING while not ready, then SERVING again', async () => {
    const client = healthClient();
    try {
      ready = true;
      expect(await eventually(() => check(client, ''), 'SERVING')).toBe('SERVING');
      expect(await check(client, 'mcplite.MCPLite')).toBe('SERVING');
      ready = false;
      expect(await eventually(() => check(client, ''), 'NOT_SERVING')).toBe('NOT_SERVING');
      expect(await check(client, 'mcplite.MCPLite')).toBe('NOT_SERVING');
      ready = true;
      expect(await eventually(() => check(client, 'mcplite.MCPLite'), 'SERVING')).toBe('SERVING');
    } finally {
      client.close();
    }
  });
});
