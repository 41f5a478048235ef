/**
 * A gRPC client for the tests, built at run time with @grpc/proto-loader from the spec's own section 5 text (or
 * from proto/mcplite.proto for the extensions), independent of the server's code: it has its own Struct
 * conversion and its own decoding of the error details.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  type CallOptions,
  type Client,
  credentials,
  loadPackageDefinition,
  Metadata,
  type ServiceError,
} from '@grpc/grpc-js';
import { fromJSON, loadSync, type Options } from '@grpc/proto-loader';

/**
 * Spec v0.042 sections 5.1 and 5.2, exactly as written, plus the one line the spec forgot (the Struct import).
 */
export const SPEC_PROTO = `syntax = "proto3";
package mcplite;
import "google/protobuf/struct.proto";

service MCPLite {
  rpc GetTools(Empty) returns (ToolsList);
  rpc CallTool(ToolRequest) returns (ToolResponse);
  rpc CallToolStream(ToolRequest) returns (stream ToolResponse);
}

message Empty {}

message Tool {
  string name = 1;
  string type = 2;  // @type field
  string description = 3;
  google.protobuf.Struct input_schema = 4;
}

message ToolsList {
  repeated Tool tools = 1;
}

message ToolRequest {
  string name = 1;
  google.protobuf.Struct arguments = 2;
}

message ToolResponse {
  google.protobuf.Struct result = 1;
  ResponseMeta meta = 2;
}

message ResponseMeta {
  ResponseType response_type = 1;
  string promise_token = 2;  // if response_type == PROMISE
  int64 timestamp = 3;
  int32 processing_time_ms = 4;
}

enum ResponseType {
  ANSWER = 0;
  PROMISE = 1;
  ELICITATION = 2;
  FAILURE = 3;
}
`;

/** The shipped proto with the extensions. */
export const FULL_PROTO_PATH = resolve(import.meta.dirname, '../../proto/mcplite.proto');

/** How the tests load protos: spec names, int64 as strings (as a careful client would), enums as names. */
const CLIENT_OPTIONS: Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
};

let specPath: string | undefined;

/** Writes the spec's proto to a temporary file once and returns its path. */
export function specProtoPath(): string {
  if (!specPath) {
    const dir = mkdtempSync(join(tmpdir(), 'mcplite-spec-proto-'));
    specPath = join(dir, 'mcplite.proto');
    writeFileSync(specPath, SPEC_PROTO);
  }
  return specPath;
}

/** A client of mcplite.MCPLite as grpc-js makes it (methods by name, untyped). */
export type McpLiteClient = Client & Record<string, any>;

/** Creates a client of `address` from the spec's proto (`'spec'`) or the shipped one (`'full'`). */
export function makeClient(
  address: string,
  proto: 'spec' | 'full' = 'spec',
  options: Record<string, unknown> = {},
) {
  const definition = loadSync(proto === 'spec' ? specProtoPath() : FULL_PROTO_PATH, CLIENT_OPTIONS);
  const pkg = loadPackageDefinition(definition) as any;
  const Ctor = pkg.mcplite.MCPLite;
  return new Ctor(address, credentials.createInsecure(), options) as McpLiteClient;
}

// ---- JSON <-> Struct, the client's own ----

/** A JSON object as a google.protobuf.Struct (proto-loader object form). */
export function jsonToStruct(obj: Record<string, unknown>): any {
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined) fields[k] = jsonToValue(v);
  return { fields };
}

function jsonToValue(v: unknown): any {
  if (v === null) return { nullValue: 'NULL_VALUE' };
  if (typeof v === 'number') return { numberValue: v };
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (Array.isArray(v)) return { listValue: { values: v.map(jsonToValue) } };
  return { structValue: jsonToStruct(v as Record<string, unknown>) };
}

/** A google.protobuf.Struct (proto-loader object form, `oneofs: true`) as JSON. */
export function structToJson(struct: any): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(struct?.fields ?? {})) out[k] = valueToJson(v);
  return out;
}

function valueToJson(v: any): unknown {
  switch (v?.kind) {
    case 'nullValue':
      return null;
    case 'numberValue':
      return v.numberValue;
    case 'stringValue':
      return v.stringValue;
    case 'boolValue':
      return v.boolValue;
    case 'structValue':
      return structToJson(v.structValue);
    case 'listValue':
      return (v.listValue.values ?? []).map(valueToJson);
    default:
      throw new Error(`unexpected Value ${JSON.stringify(v)}`);
  }
}

// ---- calls ----

/** A unary call's outcome: the response, or the status error. */
export type UnaryOutcome =
  | { response: any; error?: undefined }
  | { response?: undefined; error: ServiceError };

/** Calls a unary method and settles with the response or the error (never rejects). */
export function unary(
  client: McpLiteClient,
  method: string,
  request: unknown,
  options: { metadata?: Metadata; deadlineMs?: number } = {},
): Promise<UnaryOutcome> {
  const callOptions: CallOptions = {};
  if (options.deadlineMs !== undefined) callOptions.deadline = Date.now() + options.deadlineMs;
  return new Promise((done) => {
    client[method](
      request,
      options.metadata ?? new Metadata(),
      callOptions,
      (error: ServiceError | null, response: any) => done(error ? { error } : { response }),
    );
  });
}

/** A ToolRequest from a name and JSON arguments. */
export function toolRequest(
  name: string,
  args?: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  return { name, ...(args ? { arguments: jsonToStruct(args) } : {}), ...extra };
}

/** Everything one CallToolStream call produced. */
export interface StreamOutcome {
  messages: any[];
  error?: ServiceError;
}

/** Reads a whole CallToolStream call. */
export function readStream(
  client: McpLiteClient,
  request: unknown,
  options: { metadata?: Metadata; deadlineMs?: number } = {},
): Promise<StreamOutcome> {
  const callOptions: CallOptions = {};
  if (options.deadlineMs !== undefined) callOptions.deadline = Date.now() + options.deadlineMs;
  const call = client.CallToolStream(request, options.metadata ?? new Metadata(), callOptions);
  const messages: any[] = [];
  return new Promise((done) => {
    call.on('data', (m: any) => messages.push(m));
    call.on('error', (error: ServiceError) => done({ messages, error }));
    call.on('end', () => done({ messages }));
  });
}

/** Metadata with `authorization: Bearer <token>`. */
export function bearer(token: string): Metadata {
  const md = new Metadata();
  md.set('authorization', `Bearer ${token}`);
  return md;
}

// ---- the richer error model, decoded with the client's own definitions ----

const rpcTypes = fromJSON(
  {
    nested: {
      google: {
        nested: {
          rpc: {
            nested: {
              Status: {
                fields: {
                  code: { type: 'int32', id: 1 },
                  message: { type: 'string', id: 2 },
                  details: { rule: 'repeated', type: 'google.protobuf.Any', id: 3 },
                },
              },
              ErrorInfo: {
                fields: {
                  reason: { type: 'string', id: 1 },
                  domain: { type: 'string', id: 2 },
                  metadata: { keyType: 'string', type: 'string', id: 3 },
                },
              },
              BadRequest: {
                fields: { field_violations: { rule: 'repeated', type: 'FieldViolation', id: 1 } },
                nested: {
                  FieldViolation: {
                    fields: { field: { type: 'string', id: 1 }, description: { type: 'string', id: 2 } },
                  },
                },
              },
            },
          },
          protobuf: {
            nested: {
              Any: { fields: { type_url: { type: 'string', id: 1 }, value: { type: 'bytes', id: 2 } } },
            },
          },
        },
      },
    },
  } as any,
  { keepCase: true },
) as any;

/** The decoded `grpc-status-details-bin` of an error: the Status, its ErrorInfo and BadRequest (if any). */
export interface ErrorDetails {
  code: number;
  message: string;
  errorInfo?: { reason: string; domain: string; metadata: Record<string, string> };
  badRequest?: { field_violations: Array<{ field: string; description: string }> };
}

/** Decodes the richer error details of a ServiceError; undefined when it has none. */
export function errorDetails(error: ServiceError): ErrorDetails | undefined {
  const raw = error.metadata?.get('grpc-status-details-bin')[0];
  if (!raw || typeof raw === 'string') return undefined;
  const status = rpcTypes['google.rpc.Status'].deserialize(raw);
  const out: ErrorDetails = { code: status.code, message: status.message };
  for (const any of status.details ?? []) {
    if (any.type_url.endsWith('/google.rpc.ErrorInfo'))
      out.errorInfo = rpcTypes['google.rpc.ErrorInfo'].deserialize(any.value);
    if (any.type_url.endsWith('/google.rpc.BadRequest'))
      out.badRequest = rpcTypes['google.rpc.BadRequest'].deserialize(any.value);
  }
  return out;
}
