/**
 * The conformance fixture: the tools, resources and prompts the official MCP conformance suite
 * (`@modelcontextprotocol/conformance server --suite all`) expects, defined once with mcplite's core API. The tools
 * core expresses are in fixture-tools.ts; what core has no concept of yet (sampling and roots requests, alone or
 * mixed with elicitations) is written here as native MCP tools.
 */
import type { McpNativePrompt, McpNativeTool } from '../../src/bindings/mcp/native.js';
import { McpLiteError } from '../../src/core/errors.js';
import type { PromptDefinition } from '../../src/core/prompts.js';
import type { ResourceDefinition, ResourceTemplateDefinition } from '../../src/core/resources.js';
import type { ToolServer } from '../../src/core/server.js';
import { createServer } from '../../src/create-server.js';
import { conformanceTools, EMPTY, TEST_IMAGE_BASE64 } from './fixture-tools.js';
import { inputRequiredPrompts, inputRequiredTools } from './input-required.js';
import { skills } from './skills.js';
import { TASKS_REQUIRED, taskTools } from './tasks.js';

const resources: ResourceDefinition[] = [
  {
    uri: 'test://static-text',
    name: 'static-text',
    title: 'Static Text Resource',
    description: 'A static text resource for testing',
    mimeType: 'text/plain',
    read: () => 'This is the content of the static text resource.',
  },
  {
    uri: 'test://static-binary',
    name: 'static-binary',
    title: 'Static Binary Resource',
    description: 'A static binary resource (image) for testing',
    mimeType: 'image/png',
    read: () => Buffer.from(TEST_IMAGE_BASE64, 'base64'),
  },
  {
    uri: 'test://watched-resource',
    name: 'watched-resource',
    title: 'Watched Resource',
    description: 'A resource that can be subscribed to',
    mimeType: 'text/plain',
    read: () => 'Watched resource content',
  },
];

const resourceTemplates: ResourceTemplateDefinition[] = [
  {
    uriTemplate: 'test://template/{id}/data',
    name: 'template',
    title: 'Resource Template',
    description: 'A resource template with parameter substitution',
    mimeType: 'application/json',
    read: (uri, { id }) => [
      {
        uri,
        mimeType: 'application/json',
        text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
      },
    ],
  },
];

const prompts: PromptDefinition[] = [
  {
    name: 'test_simple_prompt',
    title: 'Simple Test Prompt',
    description: 'A simple prompt without arguments',
    handler: () => 'This is a simple prompt for testing.',
  },
  {
    name: 'test_prompt_with_arguments',
    title: 'Prompt With Arguments',
    description: 'A prompt with required arguments',
    arguments: [
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
    handler: ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
    complete: { arg1: (value) => ['paris', 'park', 'party', 'test'].filter((v) => v.startsWith(value)) },
  },
  {
    name: 'test_prompt_with_embedded_resource',
    title: 'Prompt With Embedded Resource',
    description: 'A prompt that includes an embedded resource',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
    handler: ({ resourceUri }) => [
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: {
            uri: resourceUri!,
            mimeType: 'text/plain',
            text: 'Embedded resource content for testing.',
          },
        },
      },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ],
  },
  {
    name: 'test_prompt_with_image',
    title: 'Prompt With Image',
    description: 'A prompt that includes image content',
    handler: () => [
      { role: 'user', content: { type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  },
];

/** Native MCP tools for what core cannot express yet. */
function nativeTools(): McpNativeTool[] {
  return [
    {
      tool: {
        name: 'test_sampling',
        description: 'Tests server-initiated sampling (LLM completion request)',
        inputSchema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] },
      },
      handler: async (params, ctx) => {
        const args = (params.arguments ?? {}) as { prompt?: string };
        if (!ctx.request)
          return { content: [{ type: 'text', text: 'Sampling needs a client on a stream' }], isError: true };
        const reply = (await ctx.request('sampling/createMessage', {
          messages: [{ role: 'user', content: { type: 'text', text: args.prompt ?? '' } }],
          maxTokens: 100,
        })) as { content?: { text?: string } };
        return { content: [{ type: 'text', text: `LLM response: ${reply.content?.text ?? 'No response'}` }] };
      },
    },
    {
      tool: {
        name: 'test_missing_capability',
        description: 'Needs the sampling capability; without it the call is refused with -32021',
        inputSchema: EMPTY,
      },
      handler: (_params, ctx) => {
        if (typeof ctx.clientCapabilities.sampling !== 'object') {
          throw new McpLiteError('missing_capability', 'Missing required client capability: sampling', {
            requiredCapabilities: { sampling: {} },
          });
        }
        return { content: [{ type: 'text', text: 'sampling is available' }] };
      },
    },
  ];
}

/** The fixture: a tool server plus the native MCP tools to pass to the MCP binding. */
export function createConformanceFixture(): {
  server: ToolServer;
  nativeTools: McpNativeTool[];
  nativePrompts: McpNativePrompt[];
  tasksRequired: string[];
} {
  let server: ToolServer | undefined;
  server = createServer({
    name: 'mcplite-conformance-fixture',
    version: '1.0.0',
    tools: [...conformanceTools(() => server!), ...taskTools],
    // Short, so that test_tool_with_task's second round becomes a promise (a task) quickly.
    answerBudgetMs: 1000,
    resources,
    resourceTemplates,
    prompts,
    skills,
  });
  return {
    server,
    nativeTools: [...nativeTools(), ...inputRequiredTools],
    nativePrompts: inputRequiredPrompts,
    tasksRequired: TASKS_REQUIRED,
  };
}
