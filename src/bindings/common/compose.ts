import type { NeutralHandler } from '../../core/http.js';

/**
 * Tries each handler in turn; the first that takes the request (returns a promise rather than undefined) answers
 * it. Declining is synchronous (see NeutralHandler), so a request costs no promise turn for the handlers that
 * pass it on, and none for the composition itself.
 */
export function composeHandlers(...handlers: NeutralHandler[]): NeutralHandler {
  return (request) => {
    for (const handler of handlers) {
      const pending = handler(request);
      if (pending !== undefined) return pending;
    }
    return undefined;
  };
}
