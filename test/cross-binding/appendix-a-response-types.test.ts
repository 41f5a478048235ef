/**
 * Spec Appendix A, end to end: the response types Appendix A does not show (elicitation, failure,
 * request-for-more-resource), checked on the demo served on a real socket.
 */
import { describe, expect, it } from 'vitest';
import { base, expectMeta, serveDemo } from '../support/appendix-a.js';
import { callMessage, rpc } from '../support/mcp-lite-http.js';

serveDemo();

describe('the other response types', () => {
  it('subscribe_digest elicits what is missing, then confirms with the answers and the signed state', async () => {
    const first = await rpc(`${base}calltools`, callMessage(1, 'subscribe_digest', { category: 'security' }));
    expectMeta(first.result!._meta, 'elicitation');
    const { elicitation } = first.result!;
    expect(elicitation.message).toMatch(/email/);
    expect(elicitation.requested_schema).toEqual({
      type: 'object',
      properties: {
        email: expect.objectContaining({ type: 'string', format: 'email' }),
        frequency: expect.objectContaining({ enum: ['daily', 'weekly'] }),
      },
      required: ['email', 'frequency'],
    });
    expect(elicitation.state).toEqual(expect.any(String));

    // An answer that does not satisfy the requested schema is refused.
    const bad = await rpc(
      `${base}calltools`,
      callMessage(
        2,
        'subscribe_digest',
        {},
        {
          elicitation: { state: elicitation.state, answers: { email: 'not an email', frequency: 'weekly' } },
        },
      ),
    );
    expect(bad.error!.code).toBe(-32602);

    // The second round carries the same arguments (the state is bound to them, issue 22) and the answers.
    const second = await rpc(
      `${base}calltools`,
      callMessage(
        3,
        'subscribe_digest',
        { category: 'security' },
        {
          elicitation: {
            state: elicitation.state,
            answers: { email: 'ada@example.com', frequency: 'weekly' },
          },
        },
      ),
    );
    expectMeta(second.result!._meta, 'answer');
    expect(second.result!.content).toMatchObject({
      subscribed: true,
      subscription_id: expect.stringMatching(/^sub_[0-9a-f]{12}$/),
      email: 'ada@example.com',
      category: 'security',
      frequency: 'weekly',
    });
  });

  it('subscribe_digest asks for the category too when it is missing', async () => {
    const first = await rpc(
      `${base}calltools`,
      callMessage(1, 'subscribe_digest', { email: 'ada@example.com' }),
    );
    expect(first.result!.elicitation.requested_schema.required).toEqual(['frequency', 'category']);
  });

  it('a forged elicitation state is refused', async () => {
    const body = await rpc(
      `${base}calltools`,
      callMessage(
        1,
        'subscribe_digest',
        {},
        {
          elicitation: {
            state: 'eyJ0b29sIjoic3Vic2NyaWJlX2RpZ2VzdCJ9.AAAA',
            answers: { email: 'a@b.co', frequency: 'daily' },
          },
        },
      ),
    );
    expect(body.error!.code).toBe(-32602);
  });

  it('get_document answers a document, and an unknown id is a failure outcome (not a protocol error)', async () => {
    const found = await rpc(`${base}calltools`, callMessage(1, 'get_document', { document_id: 'doc_001' }));
    expectMeta(found.result!._meta, 'answer');
    expect(found.result!.content).toMatchObject({ document_id: 'doc_001', title: expect.any(String) });

    const missing = await rpc(`${base}calltools`, callMessage(2, 'get_document', { document_id: 'doc_999' }));
    expect(missing.error).toBeUndefined();
    expectMeta(missing.result!._meta, 'failure');
    expect(missing.result!.failure).toMatchObject({
      message: expect.stringContaining('doc_999'),
      code: 'not_found',
    });
  });

  it('export_documents asks for more rows when the category does not fit, and answers when it does', async () => {
    const tooMany = await rpc(`${base}calltools`, callMessage(1, 'export_documents', { category: 'all' }));
    expectMeta(tooMany.result!._meta, 'request-for-more-resource');
    const request = tooMany.result!.resource_request;
    expect(request).toEqual({
      resource: 'rows',
      requested: expect.any(Number),
      granted: 50,
      unit: 'documents',
      message: expect.stringContaining('max_rows'),
    });
    expect(request.requested).toBeGreaterThan(50);

    const enough = await rpc(
      `${base}calltools`,
      callMessage(2, 'export_documents', { category: 'all', max_rows: request.requested }),
    );
    expectMeta(enough.result!._meta, 'answer');
    expect(enough.result!.content.rows).toHaveLength(request.requested);

    const small = await rpc(`${base}calltools`, callMessage(3, 'export_documents', { category: 'finance' }));
    expect(small.result!.content.count).toBe(small.result!.content.rows.length);
  });

  it('echo returns its input', async () => {
    const body = await rpc(`${base}calltools`, callMessage(1, 'echo', { message: 'hello', repeat: 3 }));
    expect(body.result!.content).toEqual({ message: 'hello', repeat: 3 });
  });
});
