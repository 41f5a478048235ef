import type { Middleware } from '../operation.js';
import { withEntry } from '../pipeline.js';
import { ToolCallOperation } from '../tool-call-operation.js';

/**
 * The stage before user middleware that finds a tool call's tool as its caller may see it and checks the arguments
 * (`ToolResolution.screen`), so that user middleware sees them checked, and sees a call that cannot run as a refused
 * operation. Its whole work comes before passing on, so where it is the chain's first stage `Pipeline` runs it
 * without a stage turn.
 */
export function resolveToolsStage(screen: (op: ToolCallOperation) => void): Middleware {
  const enter = (op: Parameters<Middleware>[0]) => {
    if (op instanceof ToolCallOperation) screen(op);
  };
  return withEntry((op, next) => {
    enter(op);
    return next();
  }, enter);
}
