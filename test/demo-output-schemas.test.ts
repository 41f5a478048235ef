import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverOptions, tools } from '../examples/demo/index.js';
import { callMessage, postJson, startServer, type TestServer } from './support/http-harness.js';

/**
 * The demo tools that declare output schemas on the tool answer, over MCP-lite HTTP, what the listing declares.
 * The others (search_documents, analyze_dataset, generate_report, subscribe_digest) declare theirs on the
 * `documents` webtool's actions; src/bindings/webtools/webtools-binding.test.ts checks real answers against them.
 */

const ajv = new Ajv2020({ strict: false, allErrors: true });
((addFormatsModule as any).default ?? addFormatsModule)(ajv);

let t: TestServer;
beforeAll(async () => {
  t = await startServer({ ...serverOptions, tools, answerBudgetMs: 0 });
});
afterAll(() => t.close());

const CALLS: Array<[string, Record<string, unknown>]> = [
  ['echo', { message: 'hello', repeat: 2 }],
  ['get_document', { document_id: 'doc_002' }],
  ['export_documents', { category: 'security', max_rows: 1000 }],
];

describe('demo output schemas', () => {
  it.each(CALLS)(
    '%s answers what its outputSchema declares',
    async (name, args) => {
      const listed = (await (await postJson(t.toolsUrl, {})).json()) as { tools: any[] };
      const schema = listed.tools.find((x) => x.name === name).outputSchema;
      expect(schema).toMatchObject({ type: 'object' });
      let body = (await (await postJson(t.rpcUrl, callMessage(name, args))).json()) as any;
      const token = body.result._meta.promise_token;
      if (token) {
        body = (await (
          await postJson(t.rpcUrl, callMessage('redeem', { promise: token, wait_ms: 20_000 }))
        ).json()) as any;
      }
      expect(body.result._meta.response_type).toBe('answer');
      const validate = ajv.compile(schema);
      expect(validate(body.result.content), JSON.stringify(validate.errors)).toBe(true);
    },
    30_000,
  );
});
