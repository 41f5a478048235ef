import { fromJSON } from '@grpc/proto-loader';

/**
 * The gRPC richer error model: a `google.rpc.Status` in the `grpc-status-details-bin` trailer, carrying an
 * `ErrorInfo` (and a `BadRequest` for invalid arguments). Generic gRPC tooling decodes these without knowing
 * mcplite. Only the few messages needed are defined here, so the package ships no google/rpc protos.
 */

/** The trailer that carries the encoded google.rpc.Status. */
export const STATUS_DETAILS_KEY = 'grpc-status-details-bin';
/** The `domain` of every ErrorInfo mcplite sends. */
export const ERROR_DOMAIN = 'mcplite';

const TYPE_PREFIX = 'type.googleapis.com/';

// A map field (ErrorInfo.metadata) has a keyType, which protobufjs' IField type does not list.
const namespace = {
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
};
const definitions = fromJSON(namespace, { keepCase: true });

type Codec = { serialize(value: object): Buffer };
const codec = (name: string) => definitions[name] as unknown as Codec;
const STATUS = codec('google.rpc.Status');
const ERROR_INFO = codec('google.rpc.ErrorInfo');
const BAD_REQUEST = codec('google.rpc.BadRequest');

/** What goes into the details of one error status. */
export interface StatusDetails {
  code: number;
  message: string;
  /** ErrorInfo.reason: the McpLiteError code in UPPER_SNAKE_CASE (e.g. TOOL_NOT_FOUND). */
  reason: string;
  /** ErrorInfo.metadata: string values as they are, anything else as JSON. */
  data: Record<string, unknown> | undefined;
}

/** Encodes a google.rpc.Status with an ErrorInfo, plus a BadRequest when `data.errors` lists field errors. */
export function encodeStatusDetails({ code, message, reason, data }: StatusDetails): Buffer {
  const metadata: Record<string, string> = {};
  if (data) {
    for (const [k, v] of Object.entries(data)) {
      if (v !== undefined) metadata[k] = typeof v === 'string' ? v : JSON.stringify(v);
    }
  }
  const details = [
    {
      type_url: `${TYPE_PREFIX}google.rpc.ErrorInfo`,
      value: ERROR_INFO.serialize({ reason, domain: ERROR_DOMAIN, metadata }),
    },
  ];
  const violations = fieldViolations(data?.errors);
  if (violations.length > 0) {
    details.push({
      type_url: `${TYPE_PREFIX}google.rpc.BadRequest`,
      value: BAD_REQUEST.serialize({ field_violations: violations }),
    });
  }
  return STATUS.serialize({ code, message, details });
}

function fieldViolations(errors: unknown): Array<{ field: string; description: string }> {
  if (!Array.isArray(errors)) return [];
  const out: Array<{ field: string; description: string }> = [];
  for (const e of errors) {
    if (typeof e !== 'object' || e === null) continue;
    const { field, message } = e as { field?: unknown; message?: unknown };
    out.push({
      field: typeof field === 'string' ? field : '',
      description: typeof message === 'string' ? message : '',
    });
  }
  return out;
}

type Decoder = { deserialize(bytes: Buffer): Record<string, unknown> };
const decoder = (name: string) => definitions[name] as unknown as Decoder;

/**
 * Reads the ErrorInfo of a `grpc-status-details-bin` trailer back (the client's side of `encodeStatusDetails`):
 * the reason and the metadata, JSON values parsed again. Undefined when the bytes hold no mcplite ErrorInfo.
 */
export function decodeStatusDetails(
  bytes: Buffer,
): { reason: string; data: Record<string, unknown> } | undefined {
  try {
    const status = decoder('google.rpc.Status').deserialize(bytes) as {
      details?: Array<{ type_url?: string; value?: Buffer }>;
    };
    for (const any of status.details ?? []) {
      if (any.type_url !== `${TYPE_PREFIX}google.rpc.ErrorInfo` || !any.value) continue;
      const info = decoder('google.rpc.ErrorInfo').deserialize(any.value) as {
        reason?: string;
        domain?: string;
        metadata?: Record<string, string>;
      };
      const data: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(info.metadata ?? {})) {
        try {
          data[k] = /^[[{"\d-]|^(true|false|null)$/.test(v) ? JSON.parse(v) : v;
        } catch {
          data[k] = v;
        }
      }
      return { reason: info.reason ?? '', data };
    }
  } catch {
    // Not a google.rpc.Status: the status code alone has to do.
  }
  return undefined;
}
