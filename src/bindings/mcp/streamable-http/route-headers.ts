import { fromBase64, toBase64 } from '../../../core/base64.js';
import { McpLiteError } from '../../../core/errors.js';
import type { ToolServer } from '../../../core/server.js';
import { isObject, type JsonRpcRequest } from '../../common/jsonrpc.js';
import type { McpNativeTool } from '../native.js';

/** An argument that travels as an `Mcp-Param-*` header too. */
interface HeaderParam {
  /** The argument's name. */
  field: string;
  /** The header's lower-case name. */
  header: string;
  /** The header's name as written in errors. */
  label: string;
}

/** Methods whose target (tool, prompt, resource or task) `Mcp-Name` must repeat. */
const NAMED_METHODS = /^(tools\/call|prompts\/get|resources\/read|tasks\/(get|update|cancel))$/;

/**
 * The 2026-07-28 routing headers of Streamable HTTP (SEP-2243), which let a proxy route without reading the body:
 * `Mcp-Method` must name the body's method, `Mcp-Name` its tool, prompt, resource or task, and every argument a
 * tool marks with `x-mcp-header` must come as `Mcp-Param-<Name>` with the same value (literal, or
 * `=?base64?…?=`). Values are compared after trimming. The header arguments of each tool are cached per catalog
 * version.
 */
export class RoutingHeaders {
  private readonly cache = new Map<string, readonly HeaderParam[]>();
  private cacheVersion = -1;
  private readonly native = new Map<string, Record<string, unknown>>();

  constructor(
    private readonly server: ToolServer,
    nativeTools: readonly McpNativeTool[] = [],
  ) {
    for (const t of nativeTools) this.native.set(t.tool.name, t.tool.inputSchema);
  }

  /** Throws `header_mismatch` (-32020, HTTP 400) when a routing header is missing or disagrees with the body. */
  check(headers: Readonly<Record<string, string | undefined>>, m: JsonRpcRequest): void {
    const method = headers['mcp-method']?.trim();
    if (method !== m.method) {
      throw mismatch(
        method === undefined
          ? 'Header mismatch: the Mcp-Method header is missing'
          : 'Header mismatch: Mcp-Method does not match the request method',
      );
    }
    const p = isObject(m.params) ? m.params : {};
    const expected =
      m.method === 'resources/read' ? p.uri : m.method.startsWith('tasks/') ? p.taskId : p.name;
    if (typeof expected === 'string' && NAMED_METHODS.test(m.method)) {
      const name = headers['mcp-name']?.trim();
      if (name === undefined || (name !== expected && decodeHeader(name) !== expected)) {
        throw mismatch(
          `Header mismatch: Mcp-Name ${name === undefined ? 'is missing' : 'does not match the request'}`,
        );
      }
    }
    if (m.method !== 'tools/call' || typeof p.name !== 'string') return;
    const params = this.paramsOf(p.name);
    if (params.length === 0) return;
    const args = isObject(p.arguments) ? p.arguments : {};
    for (const { field, header, label } of params) {
      if (args[field] === undefined) continue;
      const raw = headers[header];
      const value = raw === undefined ? undefined : decodeHeader(raw.trim());
      if (value === undefined || value !== String(args[field])) {
        const what =
          raw === undefined
            ? 'is missing'
            : value === undefined
              ? 'is not valid Base64'
              : 'does not match the argument';
        throw mismatch(`Header mismatch: ${label} ${what}`);
      }
    }
  }

  /** The arguments of a tool that travel as `Mcp-Param-*` headers (`x-mcp-header`). */
  private paramsOf(name: string): readonly HeaderParam[] {
    const version = this.server.catalog.version;
    if (this.cacheVersion !== version) {
      this.cache.clear();
      this.cacheVersion = version;
    }
    let params = this.cache.get(name);
    if (!params) {
      const schema = this.server.catalog.get(name)?.wire.inputSchema ?? this.native.get(name);
      const props = isObject(schema?.properties) ? schema.properties : {};
      const found: HeaderParam[] = [];
      for (const [field, def] of Object.entries(props)) {
        const header = isObject(def) ? def['x-mcp-header'] : undefined;
        if (typeof header === 'string') {
          found.push({ field, header: `mcp-param-${header.toLowerCase()}`, label: `Mcp-Param-${header}` });
        }
      }
      params = found;
      // Only names of known tools reach here with a schema; the bound keeps made-up names from growing the cache.
      if (this.cache.size < 10_000) this.cache.set(name, params);
    }
    return params;
  }
}

function mismatch(message: string): McpLiteError {
  return new McpLiteError('header_mismatch', message);
}

/** A header value: `=?base64?…?=` is strict Base64 (undefined when invalid), anything else is literal. */
function decodeHeader(value: string): string | undefined {
  const m = /^=\?base64\?(.*)\?=$/.exec(value);
  if (!m) return value;
  const b64 = m[1]!;
  if (b64.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) return undefined;
  const bytes = fromBase64(b64);
  if (toBase64(bytes) !== b64) return undefined;
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}
