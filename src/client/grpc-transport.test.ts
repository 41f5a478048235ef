import { Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { fromServiceError } from './grpc-transport.js';
import { limitsOf } from './limits.js';

/** A refusal as grpc-js hands it to a client: a status, its message and the trailers. */
function refusal(trailers: Record<string, string>): ServiceError {
  const metadata = new Metadata();
  for (const [k, v] of Object.entries(trailers)) metadata.set(k, v);
  return Object.assign(new Error('16 UNAUTHENTICATED: refused'), {
    code: status.UNAUTHENTICATED,
    details: 'refused',
    metadata,
  });
}

describe("a gRPC refusal's OAuth trailers", () => {
  it('carries the challenge and the DPoP nonce of a server that sends them only as trailers', () => {
    const err = fromServiceError(
      refusal({ 'www-authenticate': 'DPoP error="use_dpop_nonce"', 'dpop-nonce': 'n-1' }),
      limitsOf({}),
    );
    expect(err.code).toBe('unauthenticated');
    expect(err.data).toMatchObject({ wwwAuthenticate: 'DPoP error="use_dpop_nonce"', dpopNonce: 'n-1' });
  });

  it('keeps no trailer longer than a challenge or a nonce can be', () => {
    const err = fromServiceError(refusal({ 'dpop-nonce': 'n'.repeat(5000) }), limitsOf({}));
    expect(err.data?.dpopNonce).toBeUndefined();
  });
});
