import type { Authenticate, Principal } from '../auth.js';
import { McpLiteError } from '../errors.js';
import { insufficientScopeChallenge } from './challenge.js';

/**
 * Refuses a call whose caller lacks a scope the tool requires (`defineTool({ auth: { scopes } })`), with
 * `forbidden` and the step-up challenge naming every required scope, so a client can ask for them and retry; the
 * tool stays listed. Only principals that carry scopes are checked: a hook without a notion of scopes (the
 * bearer-token list) and an unauthenticated transport (stdio, a local process) are trusted as before.
 */
export function assertToolScopes(
  required: readonly string[] | undefined,
  principal: Principal | undefined,
  hook: Authenticate | undefined,
): void {
  if (!required || required.length === 0 || principal?.scopes === undefined) return;
  const granted = principal.scopes;
  if (required.every((scope) => granted.includes(scope))) return;
  throw new McpLiteError(
    'forbidden',
    `This tool needs the scope${required.length > 1 ? 's' : ''} ${required.join(' ')}`,
    {
      requiredScopes: [...required],
      wwwAuthenticate: insufficientScopeChallenge(hook?.protectedResource, required),
    },
  );
}

/** Every scope the tools name, for `scopes_supported`. */
export function toolScopes(definitions: Iterable<{ auth?: { scopes?: readonly string[] } }>): Set<string> {
  const scopes = new Set<string>();
  for (const definition of definitions) for (const scope of definition.auth?.scopes ?? []) scopes.add(scope);
  return scopes;
}
