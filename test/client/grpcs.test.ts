/**
 * `grpcs://` targets: the gRPC binding served with TLS (`listenGrpc`'s `credentials`) under a self-signed
 * certificate made at test time with openssl, reached by the client with the certificate as its root
 * (`grpcRootCerts`), and by the CLI with grpc-js's `GRPC_DEFAULT_SSL_ROOTS_FILE_PATH`. Without the root, the
 * server is not trusted.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { ServerCredentials } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GrpcListening, listenGrpc } from '../../src/bindings/grpc/index.js';
import { connect, McpLiteError } from '../../src/client/index.js';
import { createServer, type ToolServer } from '../../src/index.js';
import { clientTools } from '../support/client-fixture.js';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'mcplite-grpcs-'));
const CERT = join(dir, 'cert.pem');
const KEY = join(dir, 'key.pem');

let server: ToolServer;
let grpc: GrpcListening;
let target: string;
let cert: Buffer;

beforeAll(async () => {
  const subject = ['-subj', '/CN=localhost', '-days', '1', '-keyout', KEY, '-out', CERT];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', ...subject], { stdio: 'ignore' });
  cert = readFileSync(CERT);
  server = createServer({ name: 'grpcs-fixture', version: '1.0.0', tools: clientTools });
  grpc = await listenGrpc(server, {
    credentials: ServerCredentials.createSsl(null, [{ private_key: readFileSync(KEY), cert_chain: cert }]),
  });
  // The certificate names localhost: the client must reach the server by that name.
  target = `grpcs://localhost:${grpc.port}`;
}, 120_000);
afterAll(async () => {
  await grpc?.close(200);
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('grpcs:// (TLS)', () => {
  it('lists, answers and streams with the certificate as the root', async () => {
    const client = await connect(target, { grpcRootCerts: cert });
    try {
      expect(client.binding).toBe('grpc');
      expect((await client.listTools()).map((t) => t.name)).toContain('echo');
      expect(await client.call('echo', { message: 'over tls' })).toMatchObject({
        type: 'answer',
        value: { message: 'over tls', times: 1 },
      });
      const events: Array<{ type: string }> = [];
      for await (const ev of client.stream('count', { n: 2 })) events.push(ev);
      expect(events.map((e) => e.type)).toEqual(['partial', 'partial', 'answer']);
    } finally {
      await client.close();
    }
  });

  it('does not trust the self-signed server without it', async () => {
    const client = await connect(target);
    try {
      const err = await client.call('echo', { message: 'x' }, { timeout: 10_000 }).catch((e) => e);
      expect(err).toBeInstanceOf(McpLiteError);
      expect(err.code).toBe('unavailable');
    } finally {
      await client.close();
    }
  });

  it('the CLI calls a grpcs:// target, trusting the roots grpc-js is given', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'call', target, 'echo', 'message=cli', '--json'],
      { cwd: ROOT, env: { ...process.env, GRPC_DEFAULT_SSL_ROOTS_FILE_PATH: CERT } },
    );
    expect(JSON.parse(stdout)).toMatchObject({ outcome: 'answer', value: { message: 'cli' } });
  }, 60_000);
});
