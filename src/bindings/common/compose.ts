import type { NeutralHandler } from '../../core/http.js';

/** Tries each handler in turn; the first that claims the request (returns a response) answers it. */
export function composeHandlers(...handlers: NeutralHandler[]): NeutralHandler {
  return async (request) => {
    for (const h of handlers) {
      const response = await h(request);
      if (response) return response;
    }
    return undefined;
  };
}
