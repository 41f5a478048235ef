import { describe, expect, it } from 'vitest';
import { insufficientScopeChallenge, unauthenticatedChallenge } from './challenge.js';
import { metadataUrls } from './issuer-discovery.js';
import { protectedResourceMetadataUrl } from './protected-resource.js';

describe('well-known URLs', () => {
  it('inserts the protected resource metadata path before the resource path (RFC 9728 3.1)', () => {
    expect(protectedResourceMetadataUrl('https://api.example.com/mcp')).toBe(
      'https://api.example.com/.well-known/oauth-protected-resource/mcp',
    );
    expect(protectedResourceMetadataUrl('https://api.example.com/')).toBe(
      'https://api.example.com/.well-known/oauth-protected-resource',
    );
    expect(protectedResourceMetadataUrl('https://api.example.com:8443/a/b/')).toBe(
      'https://api.example.com:8443/.well-known/oauth-protected-resource/a/b',
    );
  });

  it('tries RFC 8414 and both OpenID forms for an issuer with a path (Keycloak, Entra)', () => {
    expect(metadataUrls('https://sso.example.com/realms/tools')).toEqual([
      'https://sso.example.com/.well-known/oauth-authorization-server/realms/tools',
      'https://sso.example.com/.well-known/openid-configuration/realms/tools',
      'https://sso.example.com/realms/tools/.well-known/openid-configuration',
    ]);
    expect(metadataUrls('https://tenant.auth0.com/')).toEqual([
      'https://tenant.auth0.com/.well-known/oauth-authorization-server',
      'https://tenant.auth0.com/.well-known/openid-configuration',
    ]);
  });
});

describe('challenges', () => {
  const protectedResource = {
    resource: 'https://api.example.com/mcp',
    authorizationServers: [],
    scopes: [],
    metadataUrl: 'https://api.example.com/.well-known/oauth-protected-resource/mcp',
  };

  it('quotes parameter values, so a scope name cannot end the header or add a parameter', () => {
    expect(insufficientScopeChallenge(protectedResource, ['a"b', 'c\\d\r\nX-Evil: 1'])).toBe(
      'Bearer error="insufficient_scope", scope="a\\"b c\\\\dX-Evil: 1", resource_metadata="https://api.example.com/.well-known/oauth-protected-resource/mcp"',
    );
  });

  it('keeps the bare realm challenge of a plain hook', () => {
    expect(unauthenticatedChallenge(undefined, undefined)).toBe('Bearer realm="mcplite"');
    expect(unauthenticatedChallenge(undefined, 'x')).toBe('Bearer realm="mcplite", error="invalid_token"');
  });
});
