import type { Principal } from '../../core/auth.js';
import type { NeutralRequest, NeutralResponse } from '../../core/http.js';
import type { ToolServer } from '../../core/server.js';

/**
 * Authenticates an HTTP request in core (`ToolServer.authenticateCaller`), then answers it with `next`; a refusal
 * (thrown or rejected) is answered by `refuse`. Without a hook core answers at once: no promise turn per request.
 */
export function admitThen(
  server: ToolServer,
  request: NeutralRequest,
  next: (principal: Principal | undefined) => Promise<NeutralResponse>,
  refuse: (err: unknown) => NeutralResponse,
): Promise<NeutralResponse> {
  let admitted: Principal | undefined | Promise<Principal | undefined>;
  try {
    admitted = server.authenticateCaller(request.headers, request);
  } catch (err) {
    return Promise.resolve(refuse(err));
  }
  return admitted instanceof Promise ? admitted.then(next, refuse) : next(admitted);
}
