import { McpLiteError } from '../core/errors.js';
import { loadOptional } from '../optional-peers.js';
import { callScope } from './deadline.js';
import { fetchWithinOrigin, type HttpFetch, readResponseText } from './http-fetch.js';
import { type ClientLimits, limitsOf } from './limits.js';
import { SessionJar } from './session-jar.js';
import type { Transport } from './transport.js';
import type { Binding, ConnectOptions } from './types.js';
import { isRecord } from './wire-errors.js';

const PROBE_MS = 5_000;

/**
 * Which binding a target names, from its scheme and path alone; undefined when only the server can say (an
 * http(s) URL with an unrecognised path).
 */
export function bindingOf(target: string): Binding | undefined {
  // MCP over gRPC when the path names its service (as grpcurl names it), else MCP-lite's; a bare host:port is
  // asked which it serves when the transport opens.
  if (/^grpcs?:\/\//i.test(target))
    return /\/model_context_protocol\.Mcp\/?$/.test(target) ? 'mcp-grpc' : 'grpc';
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
 * and the MCP SDK are not small. `signal` bounds the asking and the handshake (the client's `timeout`).
 */
export async function openTransport(
  target: string,
  options: ConnectOptions,
  signal?: AbortSignal,
): Promise<Transport> {
  const headers: Record<string, string> = {
    ...options.headers,
    ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
  };
  const limits = limitsOf(options);
  // OAuth (oauth-session.ts) wraps every HTTP request of the connection; without it, plain same-origin fetch.
  // A command line (stdio) has nothing to sign in to.
  const session =
    options.oauth && /^(https?|grpcs?):\/\//i.test(target)
      ? new (await import('./oauth-session.js')).OAuthSession(
          oauthServer(options.oauth.resource ?? target),
          options.oauth,
        )
      : undefined;
  const send: HttpFetch = session ? session.fetch(fetchWithinOrigin) : fetchWithinOrigin;
  // The caller session the server gives this connection, kept and sent back like a cookie (MCP-lite context).
  const jar = new SessionJar(options.keepSession !== false);
  let binding = options.binding ?? bindingOf(target) ?? (await probe(target, headers, limits, send, signal));
  // A bare grpc://host:port names no service: the server says which of the two it serves (grpc-detect.ts).
  if (binding === 'grpc' && options.binding === undefined && /^grpcs?:\/\/[^/]+\/?$/i.test(target)) {
    const { grpcServiceOf } = await loadOptional('grpc', () => import('./grpc-detect.js'));
    binding = await grpcServiceOf(new URL(target), headers, options.grpcRootCerts, limits, signal);
  }
  switch (binding) {
    case 'grpc': {
      const url = new URL(/^grpcs?:\/\//i.test(target) ? target : target.replace(/^https?:/i, 'grpc:'));
      // The session's token rides in the metadata; a refusal (its challenge in the error) signs in or
      // refreshes through the resource's authorization server (`oauth.resource`: the server's HTTP URL).
      const { grpcTransport } = await loadOptional('grpc', () => import('./grpc-transport.js'));
      return grpcTransport(url, headers, options.grpcRootCerts, limits, session, jar);
    }
    case 'mcp-grpc': {
      const url = new URL(/^grpcs?:\/\//i.test(target) ? target : target.replace(/^https?:/i, 'grpc:'));
      const { mcpGrpcTransport } = await loadOptional('grpc', () => import('./mcp-grpc-transport.js'));
      return mcpGrpcTransport(url, headers, options.grpcRootCerts, limits, session, jar);
    }
    case 'mcp-lite-http': {
      const { httpTransport } = await import('./http-transport.js');
      return httpTransport(target, headers, limits, send, jar);
    }
    case 'webtools': {
      const { webtoolsTransport } = await import('./webtools-transport.js');
      return webtoolsTransport(target, headers, options, limits, send);
    }
    case 'stdio': {
      const [command, ...args] = splitCommand(target);
      if (!command) throw new McpLiteError('invalid_request', 'An empty command line');
      const { mcpStdioTransport } = await import('./mcp-stdio-transport.js');
      const { env, cwd, stderr } = options;
      return mcpStdioTransport(
        { command, args, ...(env ? { env } : {}), ...(cwd ? { cwd } : {}), ...(stderr ? { stderr } : {}) },
        options,
        limits,
        signal,
      );
    }
    case 'mcp': {
      const { mcpStatelessTransport, speaksStateless } = await import('./mcp-stateless-transport.js');
      let revision = options.mcpRevision;
      if (revision === undefined) {
        const asking = callScope(PROBE_MS, signal);
        try {
          revision = (await speaksStateless(target, headers, asking.signal, limits, send))
            ? 'stateless'
            : 'handshake';
        } finally {
          asking.dispose();
        }
      }
      return revision === 'stateless'
        ? mcpStatelessTransport(target, headers, options.clientInfo, limits, send, jar)
        : (await import('./mcp-sdk-transport.js')).mcpSdkTransport(
            { url: target },
            options,
            headers,
            limits,
            signal,
            session ? session.fetch((url, init) => fetch(url, init)) : undefined,
          );
    }
    default:
      throw new McpLiteError('invalid_request', `Unknown binding ${String(binding)}`);
  }
}

/**
 * Asks an http(s) URL what it serves: MCP-lite answers POST listtools, Webtools GET, anything else is MCP. Each
 * question is bounded like any reply, and followed only within the origin.
 */
async function probe(
  target: string,
  headers: Record<string, string>,
  limits: ClientLimits,
  send: HttpFetch,
  signal?: AbortSignal,
): Promise<Binding> {
  const base = target.endsWith('/') ? target : `${target}/`;
  const ask = async (url: string, init: RequestInit): Promise<unknown> => {
    const asking = callScope(PROBE_MS, signal);
    try {
      const res = await send(url, { ...init, signal: asking.signal });
      return JSON.parse(await readResponseText(res, limits.maxResponseBytes)) as unknown;
    } catch (err) {
      // The caller's deadline ends the asking; any other failure only means "not this binding".
      if (signal?.aborted) throw err;
      return undefined;
    } finally {
      asking.dispose();
    }
  };
  const lite = await ask(`${base}listtools`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/json' },
    body: '{}',
  });
  if (isRecord(lite) && Array.isArray(lite.tools)) return 'mcp-lite-http';
  const webtools = await ask(target, { headers: { ...headers, accept: 'application/json' } });
  if (isRecord(webtools) && Array.isArray(webtools.actions)) return 'webtools';
  return 'mcp';
}

/**
 * The server a token belongs to: the target without query or fragment (they may carry secrets, and do not name
 * another server). A gRPC target is keyed as the http(s) URL of its host and port.
 */
export function oauthServer(target: string): string {
  const url = new URL(target.replace(/^grpc(s?):/i, 'http$1:'));
  url.search = '';
  url.hash = '';
  return url.href;
}

/** A command and its arguments as one command line that `splitCommand` splits back into the same words. */
export function commandLine(command: string, args: readonly string[]): string {
  return [command, ...args].map((word) => `'${word.replaceAll("'", `'\\''`)}'`).join(' ');
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
