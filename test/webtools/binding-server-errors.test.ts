/**
 * The Webtools binding over real sockets, on servers of its own: internal and thrown protocol errors, bearer
 * authentication, and the rate limit.
 */
import { describe, expect, it } from 'vitest';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { bearerAuth } from '../../src/core/auth.js';
import { McpLiteError } from '../../src/core/errors.js';
import { startServer } from '../support/http-harness.js';
import { type Envelope, expectError, post } from './webtools-binding.fixtures.js';

describe('errors of other servers', () => {
  it('INTERNAL_ERROR 500 leaks nothing; a thrown protocol error keeps its code', async () => {
    const t = await startServer({
      tools: [
        {
          name: 'boom',
          handler: () => {
            throw new Error('secret at /srv/app.js');
          },
        },
        {
          name: 'late',
          handler: () => {
            throw new McpLiteError('deadline_exceeded', 'Upstream timed out');
          },
        },
      ],
    });
    try {
      const wt = `${t.running.url}/webtools/mcplite/`;
      const r = await post({ action: 'boom', request: {} }, {}, wt);
      expect(r).toMatchObject({
        status: 500,
        body: { status: 'error', error: { code: 'INTERNAL_ERROR', message: 'Internal error' } },
      });
      expect(JSON.stringify(r.body)).not.toContain('secret');
      expectError(await post({ action: 'late', request: {} }, {}, wt), 504, 'TIMEOUT');
      // Without a declaration the whole catalog is one webtool named after the server.
      const meta = (await (await fetch(wt)).json()) as Record<string, any>;
      // No tool here can return a promise, so no redeem or cancel action (issue 22, item 10).
      expect(meta.actions.map((a: { name: string }) => a.name)).toEqual(['boom', 'late']);
    } finally {
      await t.close();
    }
  });

  it('bearer auth: 401 UNAUTHENTICATED with a challenge on every route; the token opens them', async () => {
    const t = await startServer({ ...serverOptions, tools, authenticate: bearerAuth(['s3cret']) });
    try {
      const wt = `${t.running.url}/webtools/documents/`;
      const meta = await fetch(wt);
      expect(meta.status).toBe(401);
      expect(meta.headers.get('www-authenticate')).toBe('Bearer realm="mcplite"');
      expect(((await meta.json()) as Envelope).error!.code).toBe('UNAUTHENTICATED');
      const wrong = await post(
        { action: 'get_document', request: { document_id: 'doc_001' } },
        { authorization: 'Bearer nope' },
        wt,
      );
      expectError(wrong, 401, 'UNAUTHENTICATED');
      expect(wrong.headers.get('www-authenticate')).toContain('invalid_token');
      const right = await post(
        { action: 'get_document', request: { document_id: 'doc_001' } },
        { authorization: 'Bearer s3cret' },
        wt,
      );
      expect(right.status).toBe(200);
      expect((await fetch(wt, { headers: { authorization: 'Bearer s3cret' } })).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('rate limit under a burst: the burst passes, the rest is 429 RATE_LIMIT with Retry-After', async () => {
    const t = await startServer({ ...serverOptions, tools, rateLimit: { requestsPerSecond: 0.2, burst: 5 } });
    try {
      const wt = `${t.running.url}/webtools/documents/`;
      const replies = await Promise.all(
        Array.from({ length: 20 }, () =>
          post({ action: 'get_document', request: { document_id: 'doc_001' } }, {}, wt),
        ),
      );
      const ok = replies.filter((r) => r.status === 200);
      const limited = replies.filter((r) => r.status === 429);
      expect(ok.length).toBeGreaterThanOrEqual(5);
      expect(ok.length).toBeLessThanOrEqual(6);
      expect(ok.length + limited.length).toBe(20);
      for (const r of limited) {
        expectError(r, 429, 'RATE_LIMIT');
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(r.body.error!.details.retryAfterMs).toBeGreaterThan(0);
      }
      // Metadata is not a call: it stays readable while the caller is limited.
      expect((await fetch(wt)).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
