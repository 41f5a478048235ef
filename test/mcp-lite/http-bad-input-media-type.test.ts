/**
 * Bad input to the MCP-lite HTTP binding, transport level: wrong methods, media types and encodings, and
 * unknown endpoints; the server keeps serving afterwards.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { callMessage, type JsonRpcResponse, postJson } from '../support/http-harness.js';
import { t, useBadInputServer } from './bad-input.fixtures.js';

useBadInputServer();

describe('method and media type', () => {
  it.each(['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])(
    'refuses %s with 405 and Allow: POST',
    async (method) => {
      const res = await fetch(t.rpcUrl, { method });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    },
  );

  it('refuses a missing Content-Type with 415', async () => {
    const res = await fetch(t.rpcUrl, { method: 'POST', body: new Uint8Array(Buffer.from('{}')) });
    expect(res.status).toBe(415);
    expect(((await res.json()) as JsonRpcResponse).error!.code).toBe(-32600);
  });

  it.each([
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/jsonx',
  ])('refuses Content-Type %s with 415', async (type) => {
    const res = await fetch(t.rpcUrl, { method: 'POST', headers: { 'content-type': type }, body: '{}' });
    expect(res.status).toBe(415);
  });

  it('refuses a JSON Content-Type with a charset other than UTF-8 with 415', async () => {
    const res = await fetch(t.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=iso-8859-1' },
      body: JSON.stringify(callMessage('echo', { text: 'x' })),
    });
    expect(res.status).toBe(415);
  });

  it('accepts application/json with a UTF-8 charset in any case', async () => {
    const res = await fetch(t.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'Application/JSON; Charset="UTF-8"' },
      body: JSON.stringify(callMessage('echo', { text: 'x' })),
    });
    expect(res.status).toBe(200);
  });

  it('refuses a compressed body (Content-Encoding: gzip) with 415', async () => {
    const res = await fetch(t.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: new Uint8Array(gzipSync(JSON.stringify(callMessage('echo', { text: 'x' })))),
    });
    expect(res.status).toBe(415);
  });

  it('answers 404 for an unknown endpoint under the base path and for paths outside it', async () => {
    expect((await postJson(`${t.base}nope`, {})).status).toBe(404);
    expect((await postJson(`${t.running.url}/elsewhere`, {})).status).toBe(404);
  });
});
