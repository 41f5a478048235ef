import { McpLiteError } from './errors.js';
import { type JsonSchema, type SchemaInput, toJsonSchema } from './schema.js';

/**
 * A tool's input schema as JSON Schema, refused unless it describes an object. Two mistakes are caught here, when
 * the tool is defined, rather than on the wire: a raw zod shape (`{ title: z.string() }`, which the SDK's
 * `registerTool` takes but is no schema), which was read as JSON Schema with odd keywords and accepted any
 * arguments; and a schema of something other than an object, which was published and made the official MCP
 * client's `listTools()` throw for every tool on the server (MCP requires `type: "object"`).
 */
export function inputJsonSchema(tool: string, schema: SchemaInput): JsonSchema {
  if (isRawShape(schema)) {
    const fields = Object.keys(schema).slice(0, 3).join(', ');
    throw invalid(
      tool,
      `is a raw zod shape ({ ${fields} }), not a schema: write inputSchema: z.object({ ${fields} })`,
    );
  }
  const json = convert(tool, 'inputSchema', schema);
  if (json.type !== 'object') {
    const what = json.type === undefined ? 'says no type' : `describes ${JSON.stringify(json.type)}`;
    throw invalid(
      tool,
      `${what}, but MCP requires the arguments to be an object: use z.object({ … }) or JSON Schema with ` +
        "type: 'object' (wrap a single value as z.object({ value: … }))",
    );
  }
  return json;
}

/** Any other schema of a tool (output, elicitation) as JSON Schema; one that cannot be converted names the tool. */
export function convert(tool: string, which: string, schema: SchemaInput): JsonSchema {
  try {
    return toJsonSchema(schema);
  } catch (err) {
    throw new McpLiteError(
      'invalid_request',
      `Invalid ${which} of tool "${tool}": ${(err as Error).message}`,
    );
  }
}

/**
 * Checks a definition's schemas as the catalog will, so that `defineTool` fails where the tool is written, not
 * where the server is made.
 */
export function checkToolSchemas(definition: {
  name: string;
  inputSchema?: SchemaInput | undefined;
  outputSchema?: SchemaInput | undefined;
  elicitationSchema?: SchemaInput | undefined;
}): void {
  const { name, inputSchema, outputSchema, elicitationSchema } = definition;
  if (inputSchema !== undefined) inputJsonSchema(name, inputSchema);
  if (outputSchema !== undefined) convert(name, 'outputSchema', outputSchema);
  if (elicitationSchema !== undefined) convert(name, 'elicitationSchema', elicitationSchema);
}

function invalid(tool: string, problem: string): McpLiteError {
  return new McpLiteError('invalid_request', `Invalid inputSchema of tool "${tool}": it ${problem}`);
}

/** A plain object that is no schema itself but holds schema objects (zod 4 `~standard`, zod 3 `_def`). */
function isRawShape(schema: SchemaInput): schema is Record<string, unknown> {
  if (typeof schema !== 'object' || schema === null) return false;
  const s = schema as Record<string, unknown>;
  if ('~standard' in s || typeof s.toJSONSchema === 'function' || '_def' in s || '_zod' in s) return false;
  return Object.values(s).some(isSchemaObject);
}

function isSchemaObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return '~standard' in v || (typeof v._def === 'object' && typeof v.safeParse === 'function');
}
