/**
 * Every binding's error tables, checked code by code over ERROR_CODES: each code has a mapping on every wire (the
 * compiler demands it of the `Record<ErrorCode, …>` tables; this holds the values to their wire's rules), and each
 * binding's converter gives what its table says. A code added to ERROR_CODES is covered here without a change.
 */
import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { fromJsonRpcError } from '../client/wire-errors.js';
import { ERROR_CODES, type ErrorCode, McpLiteError } from '../core/errors.js';
import { MESSAGE_HTTP_STATUS } from './common/http-reply.js';
import { GRPC_STATUS, toGrpcError } from './grpc/wire.js';
import { DRAFT_INVALID_PARAMS, DRAFT_JSON_RPC_CODE, draftError } from './mcp/draft-dialect/wire.js';
import {
  httpStatusOf,
  JSON_RPC_CODE as MCP_JSON_RPC_CODE,
  STATELESS_HTTP_STATUS,
  STATELESS_JSON_RPC_CODE,
  toMcpError,
} from './mcp/wire.js';
import {
  HTTP_STATUS as LITE_HTTP_STATUS,
  JSON_RPC_CODE as LITE_JSON_RPC_CODE,
  toRpcError,
} from './mcp-lite/wire.js';
import { errorEnvelope, WEBTOOLS_ERRORS, webtoolsErrorOf } from './webtools/wire.js';

/** A protocol-level JSON-RPC code: an integer at or below -32000 (-32800, cancelled, is LSP's, as MCP uses it). */
const isJsonRpcCode = (n: number) => Number.isInteger(n) && n <= -32000;
/** A status that can answer an error: 200 (the JSON-RPC error is in the body) or 4xx/5xx. */
const isErrorStatus = (n: number) => n === 200 || (Number.isInteger(n) && n >= 400 && n <= 599);

const TABLES: Array<[string, Readonly<Record<ErrorCode, number>>, (n: number) => boolean]> = [
  ['MCP-lite HTTP JSON-RPC codes', LITE_JSON_RPC_CODE, isJsonRpcCode],
  ['MCP-lite HTTP whole-request statuses', LITE_HTTP_STATUS, (n) => n >= 400 && n <= 599],
  ['lone-message statuses (MCP-lite HTTP, MCP handshake)', MESSAGE_HTTP_STATUS, isErrorStatus],
  ['MCP JSON-RPC codes (handshake)', MCP_JSON_RPC_CODE, isJsonRpcCode],
  ['MCP JSON-RPC codes (stateless)', STATELESS_JSON_RPC_CODE, isJsonRpcCode],
  ['MCP HTTP statuses (stateless)', STATELESS_HTTP_STATUS, isErrorStatus],
  ['gRPC statuses', GRPC_STATUS, (n) => Object.values(status).includes(n) && n !== status.OK],
  [
    'Webtools statuses',
    Object.fromEntries(Object.entries(WEBTOOLS_ERRORS).map(([c, e]) => [c, e.status])) as Record<
      ErrorCode,
      number
    >,
    (n) => n >= 400 && n <= 599,
  ],
  [
    'draft-dialect JSON-RPC codes',
    DRAFT_JSON_RPC_CODE,
    (n) => isJsonRpcCode(n) || n === DRAFT_INVALID_PARAMS,
  ],
];

describe.each(TABLES)('%s', (_name, table, valid) => {
  it('maps exactly the codes of ERROR_CODES', () => {
    expect(Object.keys(table).sort()).toEqual([...ERROR_CODES].sort());
  });
  it.each([...ERROR_CODES])('maps %s to a value its wire allows', (code) => {
    expect(valid(table[code]), `${code} -> ${table[code]}`).toBe(true);
  });
});

describe('Webtools codes and statuses', () => {
  it('maps exactly the codes of ERROR_CODES, each to an upper-case code and a 4xx/5xx status', () => {
    expect(Object.keys(WEBTOOLS_ERRORS).sort()).toEqual([...ERROR_CODES].sort());
    for (const code of ERROR_CODES) {
      const { code: wire, status: http } = WEBTOOLS_ERRORS[code];
      expect(wire, code).toMatch(/^[A-Z_]+$/);
      expect(http >= 400 && http <= 599, `${code} -> ${http}`).toBe(true);
    }
  });

  it("uses the spec's codes and statuses where the spec has one", () => {
    expect(WEBTOOLS_ERRORS.invalid_params).toEqual({ code: 'SCHEMA_ERROR', status: 400 });
    expect(WEBTOOLS_ERRORS.parse_error).toEqual({ code: 'SCHEMA_ERROR', status: 400 });
    expect(WEBTOOLS_ERRORS.rate_limited).toEqual({ code: 'RATE_LIMIT', status: 429 });
    expect(WEBTOOLS_ERRORS.internal).toEqual({ code: 'INTERNAL_ERROR', status: 500 });
    // WEBTOOL_NOT_FOUND and CONFIG_ERROR are codes of their own, chosen by the error's code (never its data).
    const notFound = new McpLiteError('webtool_not_found', 'x');
    expect(webtoolsErrorOf(notFound)).toEqual({ code: 'WEBTOOL_NOT_FOUND', status: 404 });
    const config = new McpLiteError('config_invalid', 'x');
    expect(webtoolsErrorOf(config)).toEqual({ code: 'CONFIG_ERROR', status: 400 });
    const reasonOnly = new McpLiteError('method_not_found', 'x', { reason: 'webtool_not_found' });
    expect(webtoolsErrorOf(reasonOnly)).toEqual(WEBTOOLS_ERRORS.method_not_found);
  });

  it.each([...ERROR_CODES])(
    '%s reads as the envelope, its data as details (the routing reason left out)',
    (code) => {
      const err = new McpLiteError(code, `message of ${code}`, { hint: 'kept', reason: 'other' });
      expect(JSON.parse(errorEnvelope(err))).toEqual({
        status: 'error',
        error: { code: WEBTOOLS_ERRORS[code].code, message: err.message, details: { hint: 'kept' } },
      });
    },
  );
});

describe.each([...ERROR_CODES])('an McpLiteError with code %s', (code) => {
  const err = new McpLiteError(code, `message of ${code}`, { hint: 'kept' });

  it('reads on MCP-lite HTTP as its table says', () => {
    // unavailable shares -32603 with internal and says which in data.reason.
    const data = code === 'unavailable' ? { reason: 'unavailable', ...err.data } : err.data;
    expect(toRpcError(err)).toEqual({ code: LITE_JSON_RPC_CODE[code], message: err.message, data });
  });

  it('reads on /mcp as its tables say, on both kinds of revision', () => {
    expect(toMcpError(err, false).code).toBe(MCP_JSON_RPC_CODE[code]);
    expect(toMcpError(err, true).code).toBe(STATELESS_JSON_RPC_CODE[code]);
    expect(httpStatusOf(err, false)).toBe(MESSAGE_HTTP_STATUS[code]);
    expect(httpStatusOf(err, true)).toBe(STATELESS_HTTP_STATUS[code]);
  });

  it('reads on gRPC as its table says, hiding what an internal error carries', () => {
    const grpc = toGrpcError(err);
    expect(grpc.code).toBe(GRPC_STATUS[code]);
    expect(grpc.details).toBe(code === 'internal' ? 'Internal error' : err.message);
  });

  it('reads on Webtools as its table says', () => {
    expect(webtoolsErrorOf(err)).toEqual(WEBTOOLS_ERRORS[code]);
  });

  it('reads for a draft-dialect client as its table says (rewritten from the MCP error)', () => {
    expect(draftError({ ...toMcpError(err, false) }).code).toBe(DRAFT_JSON_RPC_CODE[code]);
  });
});

describe('the tables agree where the issue says they must', () => {
  it('gives one draft code to codes MCP answers alike (the dialect sees only the number)', () => {
    for (const a of ERROR_CODES) {
      for (const b of ERROR_CODES) {
        if (MCP_JSON_RPC_CODE[a] === MCP_JSON_RPC_CODE[b]) {
          expect(DRAFT_JSON_RPC_CODE[a], `${a} / ${b}`).toBe(DRAFT_JSON_RPC_CODE[b]);
        }
      }
    }
    expect(DRAFT_JSON_RPC_CODE.invalid_params).toBe(DRAFT_INVALID_PARAMS);
  });

  it('answers the codes that refine invalid_params and method_not_found as those do, except on Webtools', () => {
    for (const code of ['prompt_not_found', 'task_not_found', 'config_invalid'] as const) {
      expect(MCP_JSON_RPC_CODE[code]).toBe(MCP_JSON_RPC_CODE.invalid_params);
      expect(LITE_JSON_RPC_CODE[code]).toBe(LITE_JSON_RPC_CODE.invalid_params);
      expect(MESSAGE_HTTP_STATUS[code]).toBe(MESSAGE_HTTP_STATUS.invalid_params);
    }
    expect(LITE_JSON_RPC_CODE.webtool_not_found).toBe(LITE_JSON_RPC_CODE.tool_not_found);
    expect(MCP_JSON_RPC_CODE.webtool_not_found).toBe(MCP_JSON_RPC_CODE.tool_not_found);
    expect(WEBTOOLS_ERRORS.webtool_not_found).toEqual({ code: 'WEBTOOL_NOT_FOUND', status: 404 });
    expect(WEBTOOLS_ERRORS.config_invalid).toEqual({ code: 'CONFIG_ERROR', status: 400 });
  });

  it('answers unavailable and resource_exhausted alike on MCP-lite HTTP and /mcp', () => {
    for (const code of ['unavailable', 'resource_exhausted'] as const) {
      expect(MESSAGE_HTTP_STATUS[code]).toBe(LITE_HTTP_STATUS[code]);
      expect(STATELESS_HTTP_STATUS[code]).toBe(LITE_HTTP_STATUS[code]);
    }
    expect(LITE_HTTP_STATUS.unavailable).toBe(503);
    expect(LITE_HTTP_STATUS.resource_exhausted).toBe(429);
    expect(GRPC_STATUS.resource_exhausted).toBe(status.RESOURCE_EXHAUSTED);
  });

  it('answers unavailable -32603 as the issue says, told from internal by data.reason, and read back so', () => {
    const down = new McpLiteError('unavailable', 'The state store (Redis) is unavailable: refused');
    for (const error of [toRpcError(down), toMcpError(down, false), toMcpError(down, true)]) {
      expect(error).toMatchObject({ code: -32603, data: { reason: 'unavailable' } });
      expect(fromJsonRpcError(error).code).toBe('unavailable');
    }
    const fault = toRpcError(new McpLiteError('internal', 'Internal error'));
    expect(fault.code).toBe(-32603);
    expect(fromJsonRpcError(fault).code).toBe('internal');
    expect(GRPC_STATUS.unavailable).toBe(status.UNAVAILABLE);
  });

  it('refuses rate_limited natively everywhere: 429 over HTTP, RESOURCE_EXHAUSTED over gRPC', () => {
    expect(LITE_JSON_RPC_CODE.rate_limited).toBe(-32029);
    expect(MCP_JSON_RPC_CODE.rate_limited).toBe(-32029);
    for (const table of [LITE_HTTP_STATUS, MESSAGE_HTTP_STATUS, STATELESS_HTTP_STATUS]) {
      expect(table.rate_limited).toBe(429);
    }
    expect(GRPC_STATUS.rate_limited).toBe(status.RESOURCE_EXHAUSTED);
    expect(WEBTOOLS_ERRORS.rate_limited.status).toBe(429);
  });
});
