import { oauthServer } from '../../client/detect.js';
import { bindingOf, connect, type OAuthOptions } from '../../client/index.js';
import { type InspectorTarget, MAX_RESPONSE_BYTES } from '../target.js';
import { createClientTarget } from './client.js';
import { createMcpLiteHttpTarget } from './mcp-lite-http.js';
import { fetchTransport, type Transport } from './transport.js';

/**
 * The target for what the user typed. An MCP-lite HTTP URL (`…/mcp-lite/v1/`) is spoken to directly, so the page
 * shows the real wire; everything else the universal client speaks (`grpc://`, an MCP URL `…/mcp`, a Webtools URL,
 * a command line run as an MCP server over stdio, or an http(s) URL it detects by asking) goes through the client.
 * With `oauth`, a protected server is signed in to by the client's OAuth on every wire (the direct MCP-lite one
 * too, through the same session).
 */
export async function inspectorTarget(
  target: string,
  headers: Readonly<Record<string, string>> = {},
  oauth?: OAuthOptions,
): Promise<InspectorTarget> {
  if (bindingOf(target) === 'mcp-lite-http') return liteTarget(target, headers, oauth);
  // The client reads no more of any response than the inspector promises to (docs/inspector.md, Security).
  const client = await connect(target, {
    headers: { ...headers },
    stderr: 'ignore',
    maxResponseBytes: MAX_RESPONSE_BYTES,
    maxStreamBytes: MAX_RESPONSE_BYTES,
    ...(oauth ? { oauth } : {}),
  });
  if (client.binding === 'mcp-lite-http') {
    await client.close();
    return liteTarget(target, headers, oauth);
  }
  return createClientTarget(client);
}

async function liteTarget(
  target: string,
  headers: Readonly<Record<string, string>>,
  oauth: OAuthOptions | undefined,
): Promise<InspectorTarget> {
  const base = target.endsWith('/') ? target : `${target}/`;
  let transport: Transport = fetchTransport(base);
  if (oauth && !headers.authorization) {
    const { OAuthSession } = await import('../../client/oauth-session.js');
    const session = new OAuthSession(oauthServer(oauth.resource ?? base), oauth);
    transport = fetchTransport(
      base,
      session.fetch((url, init) => fetch(url, init)),
    );
  }
  return createMcpLiteHttpTarget({ transport, target: base, headers });
}
