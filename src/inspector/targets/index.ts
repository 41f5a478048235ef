import { bindingOf, connect } from '../../client/index.js';
import { type InspectorTarget, MAX_RESPONSE_BYTES } from '../target.js';
import { createClientTarget } from './client.js';
import { createMcpLiteHttpTarget } from './mcp-lite-http.js';
import { fetchTransport } from './transport.js';

/**
 * The target for what the user typed. An MCP-lite HTTP URL (`…/mcp-lite/v1/`) is spoken to directly, so the page
 * shows the real wire; everything else the universal client speaks (`grpc://`, an MCP URL `…/mcp`, a Webtools URL,
 * a command line run as an MCP server over stdio, or an http(s) URL it detects by asking) goes through the client.
 */
export async function inspectorTarget(
  target: string,
  headers: Readonly<Record<string, string>> = {},
): Promise<InspectorTarget> {
  if (bindingOf(target) === 'mcp-lite-http') {
    const base = target.endsWith('/') ? target : `${target}/`;
    return createMcpLiteHttpTarget({ transport: fetchTransport(base), target: base, headers });
  }
  // The client reads no more of any response than the inspector promises to (docs/inspector.md, Security).
  const client = await connect(target, {
    headers: { ...headers },
    stderr: 'ignore',
    maxResponseBytes: MAX_RESPONSE_BYTES,
    maxStreamBytes: MAX_RESPONSE_BYTES,
  });
  if (client.binding === 'mcp-lite-http') {
    await client.close();
    const base = target.endsWith('/') ? target : `${target}/`;
    return createMcpLiteHttpTarget({ transport: fetchTransport(base), target: base, headers });
  }
  return createClientTarget(client);
}
