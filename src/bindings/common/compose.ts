import type { NeutralHandler, NeutralRequest, NeutralResponse } from '../../core/http.js';

/**
 * Tries each handler in turn; the first that claims the request (returns a response) answers it. A handler that
 * declines at once (returns undefined rather than a promise of it) costs no await, so the order of bindings does
 * not tax the ones further down the list.
 */
export function composeHandlers(...handlers: NeutralHandler[]): NeutralHandler {
  const tryFrom = (
    request: NeutralRequest,
    first: number,
  ): Promise<NeutralResponse | undefined> | undefined => {
    for (let i = first; i < handlers.length; i++) {
      const pending = handlers[i]!(request);
      if (pending !== undefined) return pending.then((response) => response ?? tryFrom(request, i + 1));
    }
    return undefined;
  };
  return (request) => tryFrom(request, 0);
}
