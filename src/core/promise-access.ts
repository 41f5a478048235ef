import type { Authenticate } from './auth.js';
import type { Catalog } from './catalog.js';
import { assertToolScopes } from './oauth/tool-scopes.js';
import { type CallerSource, RequestCaller } from './operation-caller.js';
import type { Pipeline } from './pipeline.js';
import { unknownPromise } from './promises/manager.js';

/**
 * The tool side of the one rule by which a promise is reached (`PromiseManager`'s `mayUseTool`): a caller reaches a
 * promise only while it may still use the tool that made it. A token outlives its call, and may be presented later
 * with fewer scopes or where a `visibleTools` stage hides the tool: a hidden tool's promise is unknown (as another
 * principal's is), and a missing scope gets the step-up refusal the call itself would get. A tool no longer in the
 * catalog names no scopes, and its owner alone reaches its promise.
 */
export function toolAccess(
  catalog: Catalog,
  pipeline: () => Pipeline,
  authenticate: Authenticate | undefined,
): (tool: string, caller: CallerSource) => void {
  return (name, caller) => {
    const tool = catalog.get(name);
    if (!tool) return;
    const chain = pipeline();
    if (chain.hidesTools && !chain.visible(tool.wire, new RequestCaller(caller))) throw unknownPromise();
    assertToolScopes(tool.definition.auth?.scopes, caller.principal, authenticate);
  };
}
