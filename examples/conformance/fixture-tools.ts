/**
 * The tools of the conformance fixture (fixture.ts): the tools the official MCP conformance suite calls, defined
 * with mcplite's core API (content of every kind, logging, progress, errors, elicitations, changes to the lists).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { richContent } from '../../src/core/content.js';
import { logToClient, reportProgress } from '../../src/core/notices.js';
import { elicit, failure } from '../../src/core/outcomes.js';
import type { ToolServer } from '../../src/core/server.js';
import type { ToolDefinition } from '../../src/core/tool.js';

/** A 1x1 red PNG. */
export const TEST_IMAGE_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
/** A minimal WAV file. */
export const TEST_AUDIO_BASE64 = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

/** The input schema of a tool without arguments. */
export const EMPTY = { type: 'object', properties: {} };

/**
 * A tool that asks for the form `schema` and answers with what the user sent (the conformance suite's SEP
 * elicitation scenarios differ only in the form).
 */
function elicitingTool(name: string, description: string, message: string, schema: object): ToolDefinition {
  return {
    name,
    description,
    inputSchema: EMPTY,
    handler: (_args, ctx) =>
      ctx.elicitation
        ? richContent([
            {
              type: 'text',
              // A decline or cancel reaches the handler too (it has no content).
              text:
                ctx.elicitation.action === 'accept'
                  ? `Elicitation completed: action=accept, content=${JSON.stringify(ctx.elicitation.answers)}`
                  : `Elicitation completed: action=${ctx.elicitation.action}`,
            },
          ])
        : elicit({ message, schema }),
  };
}

/**
 * The conformance suite's tools that core expresses (`getServer` gives the server, for the tools that change
 * its catalog while it runs).
 */
export function conformanceTools(getServer: () => ToolServer): ToolDefinition[] {
  return [
    {
      name: 'test_simple_text',
      description: 'Tests simple text content response',
      inputSchema: EMPTY,
      handler: () => richContent([{ type: 'text', text: 'This is a simple text response for testing.' }]),
    },
    {
      name: 'test_image_content',
      description: 'Tests image content response',
      inputSchema: EMPTY,
      handler: () => richContent([{ type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' }]),
    },
    {
      name: 'test_audio_content',
      description: 'Tests audio content response',
      inputSchema: EMPTY,
      handler: () => richContent([{ type: 'audio', data: TEST_AUDIO_BASE64, mimeType: 'audio/wav' }]),
    },
    {
      name: 'test_embedded_resource',
      description: 'Tests embedded resource content response',
      inputSchema: EMPTY,
      handler: () =>
        richContent([
          {
            type: 'resource',
            resource: {
              uri: 'test://embedded-resource',
              mimeType: 'text/plain',
              text: 'This is an embedded resource content.',
            },
          },
        ]),
    },
    {
      name: 'test_multiple_content_types',
      description: 'Tests response with multiple content types (text, image, resource)',
      inputSchema: EMPTY,
      handler: () =>
        richContent([
          { type: 'text', text: 'Multiple content types test:' },
          { type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' },
          {
            type: 'resource',
            resource: {
              uri: 'test://mixed-content-resource',
              mimeType: 'application/json',
              text: JSON.stringify({ test: 'data', value: 123 }),
            },
          },
        ]),
    },
    {
      name: 'test_tool_with_logging',
      description: 'Tests tool that emits log messages during execution',
      inputSchema: EMPTY,
      handler: async (_args, ctx) => {
        await logToClient(ctx, 'info', 'Tool execution started');
        await sleep(50);
        await logToClient(ctx, 'info', 'Tool processing data');
        await sleep(50);
        await logToClient(ctx, 'info', 'Tool execution completed');
        return richContent([{ type: 'text', text: 'Tool with logging executed successfully' }]);
      },
    },
    {
      name: 'test_logging_tool',
      description: 'Emits log messages (only sent when the request set a log level)',
      inputSchema: EMPTY,
      handler: async (_args, ctx) => {
        await logToClient(ctx, 'info', 'Logging tool message');
        return richContent([{ type: 'text', text: 'Logged' }]);
      },
    },
    {
      name: 'test_tool_with_progress',
      description: 'Tests tool that reports progress notifications',
      inputSchema: EMPTY,
      handler: async (_args, ctx) => {
        for (const step of [0, 50, 100]) {
          await reportProgress(ctx, step, { total: 100, message: `Completed step ${step} of 100` });
          if (step < 100) await sleep(50);
        }
        return richContent([{ type: 'text', text: 'Progress complete' }]);
      },
    },
    {
      name: 'test_error_handling',
      description: 'Tests error response handling',
      inputSchema: EMPTY,
      handler: () => failure('This tool intentionally returns an error for testing'),
    },
    {
      name: 'test_elicitation',
      description: 'Tests server-initiated elicitation (user input request)',
      inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
      handler: (args: { message: string }, ctx) => {
        if (ctx.elicitation) {
          return richContent([
            {
              type: 'text',
              text:
                ctx.elicitation.action === 'accept'
                  ? `User response: action=accept, content=${JSON.stringify(ctx.elicitation.answers)}`
                  : `User response: action=${ctx.elicitation.action}`,
            },
          ]);
        }
        return elicit({
          message: args.message,
          schema: {
            type: 'object',
            properties: {
              username: { type: 'string', description: "User's response" },
              email: { type: 'string', description: "User's email address" },
            },
            required: ['username', 'email'],
          },
        });
      },
    },
    elicitingTool(
      'test_elicitation_sep1034_defaults',
      'Tests elicitation with default values per SEP-1034',
      'Please review and update the form fields with defaults',
      {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'User name', default: 'John Doe' },
          age: { type: 'integer', description: 'User age', default: 30 },
          score: { type: 'number', description: 'User score', default: 95.5 },
          status: {
            type: 'string',
            description: 'User status',
            enum: ['active', 'inactive', 'pending'],
            default: 'active',
          },
          verified: { type: 'boolean', description: 'Verification status', default: true },
        },
        required: [],
      },
    ),
    elicitingTool(
      'test_elicitation_sep1330_enums',
      'Tests elicitation with enum schema improvements per SEP-1330',
      'Please select options from the enum fields',
      {
        type: 'object',
        properties: {
          untitledSingle: {
            type: 'string',
            description: 'Select one option',
            enum: ['option1', 'option2', 'option3'],
          },
          titledSingle: {
            type: 'string',
            description: 'Select one option with titles',
            oneOf: [
              { const: 'value1', title: 'First Option' },
              { const: 'value2', title: 'Second Option' },
              { const: 'value3', title: 'Third Option' },
            ],
          },
          legacyEnum: {
            type: 'string',
            description: 'Select one option (legacy)',
            enum: ['opt1', 'opt2', 'opt3'],
            enumNames: ['Option One', 'Option Two', 'Option Three'],
          },
          untitledMulti: {
            type: 'array',
            description: 'Select multiple options',
            minItems: 1,
            maxItems: 3,
            items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          },
          titledMulti: {
            type: 'array',
            description: 'Select multiple options with titles',
            minItems: 1,
            maxItems: 3,
            items: {
              anyOf: [
                { const: 'value1', title: 'First Choice' },
                { const: 'value2', title: 'Second Choice' },
                { const: 'value3', title: 'Third Choice' },
              ],
            },
          },
        },
        required: [],
      },
    ),
    {
      name: 'json_schema_2020_12_tool',
      description: 'Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)',
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: {
          address: {
            $anchor: 'addressDef',
            type: 'object',
            properties: { street: { type: 'string' }, city: { type: 'string' } },
          },
        },
        properties: {
          name: { type: 'string' },
          address: { $ref: '#/$defs/address' },
          contactMethod: { type: 'string', enum: ['phone', 'email'] },
          phone: { type: 'string' },
          email: { type: 'string' },
        },
        allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
        if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
        // biome-ignore lint/suspicious/noThenProperty: `then` is the JSON Schema keyword the suite checks for.
        then: { required: ['phone'] },
        else: { required: ['email'] },
        additionalProperties: false,
      },
      handler: (args) =>
        richContent([
          { type: 'text', text: `JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}` },
        ]),
    },
    {
      name: 'test_custom_headers',
      description: 'Echoes a region that also travels in the Mcp-Param-Region header (SEP-2243)',
      inputSchema: {
        type: 'object',
        properties: { region: { type: 'string', 'x-mcp-header': 'Region', description: 'Where to route' } },
        required: ['region'],
      },
      handler: ({ region }: { region: string }) => richContent([{ type: 'text', text: `Region: ${region}` }]),
    },
    {
      name: 'test_trigger_tool_change',
      description: 'Adds or removes a dynamic tool, so that the tool list changes',
      inputSchema: EMPTY,
      handler: () => {
        const server = getServer();
        if (!server.catalog.remove('test_dynamic_tool')) {
          server.catalog.add({
            name: 'test_dynamic_tool',
            description: 'A tool that comes and goes',
            handler: () => 'dynamic',
          });
        }
        return 'tool list changed';
      },
    },
    {
      name: 'test_trigger_prompt_change',
      description: 'Adds or removes a dynamic prompt, so that the prompt list changes',
      inputSchema: EMPTY,
      handler: () => {
        const server = getServer();
        if (!server.prompts.remove('test_dynamic_prompt')) {
          server.prompts.add({
            name: 'test_dynamic_prompt',
            description: 'A prompt that comes and goes',
            handler: () => 'dynamic',
          });
        }
        return 'prompt list changed';
      },
    },
  ];
}
