/**
 * An mcplite server protected by `oauthResourceServer` at `/mcp`, with its own real authorization server
 * (oidc-provider), for the OAuth client tests: `whoami` answers who called.
 */
import { createServer, defineTool, oauthResourceServer } from '../../src/index.js';
import { serve } from '../../src/node.js';
import { freePort } from './free-port.js';
import { type OidcIssuer, startOidcIssuer } from './oidc-issuer.js';

/** A running protected server and its issuer. */
export interface ProtectedServer {
  issuer: OidcIssuer;
  /** The server's MCP URL, also its resource identifier. */
  mcp: string;
  close(): Promise<void>;
}

export async function startProtectedServer(): Promise<ProtectedServer> {
  const issuer = await startOidcIssuer();
  const port = await freePort();
  const mcp = `http://127.0.0.1:${port}/mcp`;
  const whoami = defineTool({
    name: 'whoami',
    description: 'Says who called',
    handler: (_args, ctx) => ({ sub: ctx.principal?.sub ?? null }),
  });
  const auth = oauthResourceServer({ issuer: issuer.issuer, resource: mcp, scopes: ['tools:read'] });
  const running = await serve(createServer({ tools: [whoami], auth }), { port, host: '127.0.0.1' });
  return {
    issuer,
    mcp,
    close: async () => {
      await running.close(500);
      await issuer.close();
    },
  };
}
