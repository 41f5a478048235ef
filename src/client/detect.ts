import { McpLiteError } from '../core/errors.js';
import type { Transport } from './transport.js';
import type { Binding, ConnectOptions } from './types.js';
import { isRecord } from './wire-errors.js';

const PROBE_MS = 5_000;

/**
 * Which binding a target names, from its scheme and path alone; undefined when only the server can say (an
 * http(s) URL with an unrecognised path).
 */
export function bindingOf(target: string): Binding | undefined {
  if (/^grpcs?:\/\//i.test(target)) return 'grpc';
  if (!/^https?:\/\//i.test(target)) return 'stdio';
  const path = new URL(target).pathname;
  if (/\/webtools\/[^/]+\/?/.test(path)) return 'webtools';
  if (/\/mcp-lite(\/|$)/.test(path)) return 'mcp-lite-http';
  if (/\/mcp\/?$/.test(path)) return 'mcp';
  return undefined;
}

/**
 * Opens the transport for a target: detected by scheme and path, else by asking the server; or as told. Each
 * transport is loaded when first used, so a client (or a CLI command) pays only for the wire it speaks: grpc-js
 * and the MCP SDK are not small.
 */
export async function openTransport(target: string, options: ConnectOptions): Promise<Transport> {
  const headers: Record<string, string> = {
    ...options.headers,
    ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
  };
  const binding = options.binding ?? bindingOf(target) ?? (await probe(target, headers));
  switch (binding) {
    case 'grpc': {
      const url = new URL(/^grpcs?:\/\//i.test(target) ? target : target.replace(/^https?:/i, 'grpc:'));
      const { grpcTransport } = await import('./grpc-transport.js');
      return grpcTransport(url, headers, options.grpcRootCerts);
    }
    case 'mcp-lite-http': {
      const { httpTransport } = await import('./http-transport.js');
      return httpTransport(target, headers);
    }
    case 'webtools': {
      const { webtoolsTransport } = await import('./webtools-transport.js');
      return webtoolsTransport(target, headers, options);
    }
    case 'stdio': {
      const [command, ...args] = splitCommand(target);
      if (!command) throw new McpLiteError('invalid_request', 'An empty command line');
      const { mcpSdkTransport } = await import('./mcp-sdk-transport.js');
      return mcpSdkTransport({ command, args }, options, headers);
    }
    case 'mcp': {
      const { mcpStatelessTransport, speaksStateless } = await import('./mcp-stateless-transport.js');
      const revision =
        options.mcpRevision ??
        ((await speaksStateless(target, headers, AbortSignal.timeout(PROBE_MS))) ? 'stateless' : 'handshake');
      return revision === 'stateless'
        ? mcpStatelessTransport(target, headers, options.clientInfo)
        : (await import('./mcp-sdk-transport.js')).mcpSdkTransport({ url: target }, options, headers);
    }
    default:
      throw new McpLiteError('invalid_request', `Unknown binding ${String(binding)}`);
  }
}

/** Asks an http(s) URL what it serves: MCP-lite answers POST listtools, Webtools GET, anything else is MCP. */
async function probe(target: string, headers: Record<string, string>): Promise<Binding> {
  const base = target.endsWith('/') ? target : `${target}/`;
  try {
    const res = await fetch(`${base}listtools`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', accept: 'application/json' },
      body: '{}',
      signal: AbortSignal.timeout(PROBE_MS),
    });
    const body = (await res.json().catch(() => undefined)) as unknown;
    if (isRecord(body) && Array.isArray(body.tools)) return 'mcp-lite-http';
  } catch {
    // Not MCP-lite; try the next.
  }
  try {
    const res = await fetch(target, {
      headers: { ...headers, accept: 'application/json' },
      signal: AbortSignal.timeout(PROBE_MS),
    });
    const body = (await res.json().catch(() => undefined)) as unknown;
    if (isRecord(body) && Array.isArray(body.actions)) return 'webtools';
  } catch {
    // Not Webtools either.
  }
  return 'mcp';
}

/** A command line split into words, honouring single and double quotes and backslash escapes (no expansion). */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new McpLiteError('invalid_request', 'Unterminated quote in the command line');
  if (inWord) words.push(word);
  return words;
}
