/** oidc-provider's DPoP helpers (the package ships no types), for the test issuer's jwt-bearer grant. */
declare module 'oidc-provider/lib/helpers/validate_dpop.js' {
  /** The request's verified DPoP proof (its `thumbprint`, `jti`), or undefined without one. */
  export default function validateDpop(provider: unknown, ctx: unknown): Promise<unknown>;
}
declare module 'oidc-provider/lib/helpers/grant_common.js' {
  /** Binds a token to the proof's key (`cnf.jkt`), after the proof's replay check. */
  export function applyDpopBinding(
    provider: unknown,
    ctx: unknown,
    dPoP: unknown,
    token: unknown,
  ): Promise<void>;
}
