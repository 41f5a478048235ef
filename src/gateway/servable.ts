import type { ToolDefinition } from '../core/tool.js';

/** The deepest nesting of objects and arrays a served tool's schema may have. */
export const MAX_SCHEMA_DEPTH = 64;

/**
 * Why the gateway cannot serve an upstream's tool as listed, or undefined when it can: an input schema that is not
 * an object's (every binding sends arguments as an object), or a schema nested deeper than `MAX_SCHEMA_DEPTH`
 * (which would exhaust the stack of every validator and serializer on its way). Checked without recursion, so a
 * 20,000-deep schema costs a loop, not a crash; the tool is then left out and the upstream's others served.
 */
export function schemaProblem(tool: ToolDefinition): string | undefined {
  const input = tool.inputSchema as unknown;
  if (input !== undefined && (!isObject(input) || input.type !== 'object'))
    return 'its input schema is not an object\'s ("type": "object")';
  for (const [field, schema] of [
    ['input', input],
    ['output', tool.outputSchema],
  ] as const) {
    if (schema !== undefined && deeperThan(schema, MAX_SCHEMA_DEPTH))
      return `its ${field} schema is nested deeper than ${MAX_SCHEMA_DEPTH} levels`;
  }
  return undefined;
}

/** Whether `value` nests objects or arrays more than `limit` levels, walked with a stack of our own. */
function deeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
