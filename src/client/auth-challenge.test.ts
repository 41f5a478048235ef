import { describe, expect, it } from 'vitest';
import { parseChallenge, parseChallenges } from './auth-challenge.js';

const METADATA = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';

describe('WWW-Authenticate challenges', () => {
  it('reads a DPoP-only challenge (a resource that requires DPoP) with its metadata and error', () => {
    const header = `DPoP error="invalid_token", algs="ES256 PS256", resource_metadata="${METADATA}"`;
    expect(parseChallenge(header)).toEqual({
      scheme: 'DPoP',
      error: 'invalid_token',
      resource_metadata: METADATA,
    });
    expect(parseChallenge(header, 'Bearer')).toMatchObject({ scheme: 'DPoP', resource_metadata: METADATA });
    expect(parseChallenge('DPoP')).toEqual({ scheme: 'DPoP' });
  });

  it('reads each challenge of a resource taking both schemes, and picks the one of the scheme a request used', () => {
    const header = `Bearer resource_metadata="${METADATA}", DPoP error="use_dpop_nonce", error_description="the proof needs the nonce", algs="ES256"`;
    expect(parseChallenges(header)).toEqual([
      { scheme: 'Bearer', resource_metadata: METADATA },
      { scheme: 'DPoP', error: 'use_dpop_nonce', error_description: 'the proof needs the nonce' },
    ]);
    expect(parseChallenge(header)).toEqual({ scheme: 'Bearer', resource_metadata: METADATA });
    // The DPoP request's error is in its own challenge; where to discover comes from the resource's other one.
    expect(parseChallenge(header, 'dpop')).toEqual({
      scheme: 'DPoP',
      error: 'use_dpop_nonce',
      error_description: 'the proof needs the nonce',
      resource_metadata: METADATA,
    });
    expect(parseChallenges('DPoP, Bearer realm="x"')).toEqual([
      { scheme: 'DPoP' },
      { scheme: 'Bearer', realm: 'x' },
    ]);
  });

  it('mixes no parameter of another kind of challenge in', () => {
    const header = 'Bearer error="invalid_token", Basic realm="intranet"';
    expect(parseChallenge(header)).toEqual({ scheme: 'Bearer', error: 'invalid_token' });
    expect(parseChallenge('Basic realm="intranet", Bearer realm="mcp"', 'Basic')).toEqual({
      scheme: 'Basic',
      realm: 'intranet',
    });
    expect(parseChallenge(null)).toBeUndefined();
    expect(parseChallenge('')).toBeUndefined();
  });

  it('reads a bounded number of challenges', () => {
    expect(parseChallenges(Array.from({ length: 100 }, (_, i) => `S${i} a="b"`).join(', '))).toHaveLength(8);
  });
});
