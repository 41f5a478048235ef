import type { Operation } from './operation.js';
import { ToolCallOperation } from './tool-call-operation.js';

/**
 * The name an operation's target goes by in telemetry (span names, metric labels): a tool or prompt the server
 * has, a fixed resource's URI or the template a URI matches; undefined for a name the caller made up, which must
 * not become a span name or a metric series of its own (one per random name would be a series per request).
 */
export type TargetOf = (op: Operation) => string | undefined;

/** What `targetOf` asks of the server's catalogs. */
export interface KnownTargets {
  tools: { get(name: string): unknown };
  prompts: { has(name: string): boolean };
  resources: { nameOf(uri: string): string | undefined };
}

/** The `TargetOf` of a server with these catalogs (asked at each operation, so added and removed ones count). */
export function targetOf({ tools, prompts, resources }: KnownTargets): TargetOf {
  return (op) => {
    const name = op.name;
    if (name === undefined) return undefined;
    switch (op.method) {
      case 'tools/call':
        return (op instanceof ToolCallOperation && op.request.action) || tools.get(name) !== undefined
          ? name
          : undefined;
      case 'prompts/get':
        return prompts.has(name) ? name : undefined;
      case 'resources/read':
        return resources.nameOf(name);
      default:
        return undefined;
    }
  };
}
