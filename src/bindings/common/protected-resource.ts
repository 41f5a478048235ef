import type { NeutralHandler, NeutralRequest, NeutralResponse } from '../../core/http.js';
import {
  PROTECTED_RESOURCE_METADATA_PATH,
  protectedResourceMetadata,
} from '../../core/oauth/protected-resource.js';
import { toolScopes } from '../../core/oauth/tool-scopes.js';
import type { ToolServer } from '../../core/server.js';
import { JSON_TYPE } from './http-reply.js';

/**
 * RFC 9728 protected resource metadata at `/.well-known/oauth-protected-resource` and its path-aware forms
 * (`…/mcp`, `…/mcp-lite/v1`, `…/webtools`, whatever follows): one document for the server, since one resource
 * (one audience) covers every binding. Served without authentication (a client reads it to learn how to
 * authenticate) and to any origin, as browser-based clients fetch it too. Declines every request when the
 * server's hook names no protected resource, so a plain server has no such route. For the fetch adapter compose
 * it before the bindings, as `serve` does.
 */
export function createProtectedResourceHandler(server: ToolServer): NeutralHandler {
  return (request) => {
    const protectedResource = server.authenticate?.protectedResource;
    if (!protectedResource || !isMetadataPath(request.path)) return undefined;
    return Promise.resolve(
      answer(request, () => protectedResourceMetadata(protectedResource, scopesOf(server))),
    );
  };
}

function isMetadataPath(path: string): boolean {
  return (
    path === PROTECTED_RESOURCE_METADATA_PATH ||
    (path.startsWith(`${PROTECTED_RESOURCE_METADATA_PATH}/`) && path.length <= 1024)
  );
}

const CORS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
};

function answer(request: NeutralRequest, document: () => Record<string, unknown>): NeutralResponse {
  if (request.method === 'OPTIONS')
    return { status: 204, headers: { ...CORS, 'access-control-max-age': '86400' } };
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return { status: 405, headers: { ...CORS, allow: 'GET, HEAD, OPTIONS' } };
  }
  const body = JSON.stringify(document());
  return {
    status: 200,
    // Tools (and so their scopes) can change while the server runs: a short cache, not a stale list.
    headers: { ...CORS, 'content-type': JSON_TYPE, 'cache-control': 'public, max-age=60' },
    ...(request.method === 'HEAD' ? {} : { body }),
  };
}

/** Every scope a tool of the catalog names. */
function scopesOf(server: ToolServer): Set<string> {
  const definitions = [];
  for (const name of server.catalog.names()) {
    const tool = server.catalog.get(name);
    if (tool) definitions.push(tool.definition);
  }
  return toolScopes(definitions);
}
