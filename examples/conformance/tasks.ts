/**
 * Tools of the conformance fixture for the tasks extension (SEP-2663). They are ordinary core tools: a
 * long-running tool answers with a promise, which the MCP binding shows as a task to a client that declared
 * `io.modelcontextprotocol/tasks` (and as a "call redeem" result to one that did not).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { richContent } from '../../src/core/content.js';
import { McpLiteError } from '../../src/core/errors.js';
import { elicit, failure } from '../../src/core/outcomes.js';
import type { ToolDefinition } from '../../src/core/tool.js';

const text = (t: string) => richContent([{ type: 'text', text: t }]);

/** Tools that only run as tasks (taskSupport "required"). */
export const TASKS_REQUIRED = ['failing_job'];

/** The task fixtures. */
export const taskTools: ToolDefinition[] = [
  {
    name: 'greet',
    description: 'Says hello (synchronous)',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
    handler: ({ name }: { name?: string }) => text(`Hello, ${name ?? 'world'}!`),
  },
  {
    name: 'slow_compute',
    description: 'Sleeps `seconds` seconds, then answers (runs as a task)',
    inputSchema: {
      type: 'object',
      properties: { seconds: { type: 'number', minimum: 0 }, label: { type: 'string' } },
    },
    longRunning: { estimatedMs: 1000 },
    handler: async ({ seconds, label }: { seconds?: number; label?: string }, ctx) => {
      await sleep(Math.round((seconds ?? 1) * 1000), undefined, { signal: ctx.signal });
      return text(`Computed ${label ?? 'result'} after ${seconds ?? 1}s`);
    },
  },
  {
    name: 'failing_job',
    description:
      'Fails with a tool error after about a second (runs as a task; the tasks extension is required)',
    inputSchema: { type: 'object', properties: {} },
    longRunning: { estimatedMs: 1000 },
    handler: async (_args, ctx) => {
      await sleep(1000, undefined, { signal: ctx.signal });
      return failure('The job failed on purpose');
    },
  },
  {
    name: 'protocol_error_job',
    description: 'Ends in a protocol error (runs as a task)',
    inputSchema: { type: 'object', properties: {} },
    longRunning: { estimatedMs: 500 },
    handler: async (_args, ctx) => {
      await sleep(200, undefined, { signal: ctx.signal });
      throw new McpLiteError('internal', 'The job crashed on purpose');
    },
  },
  {
    name: 'confirm_delete',
    description: 'Asks for confirmation, then deletes (runs as a task that waits for input)',
    inputSchema: { type: 'object', properties: { filename: { type: 'string' } } },
    longRunning: { estimatedMs: 500 },
    handler: ({ filename }: { filename?: string }, ctx) => {
      if (!ctx.elicitation) {
        return elicit({
          message: `Delete ${filename ?? 'the file'}?`,
          schema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
        });
      }
      return text(ctx.elicitation.answers.confirm ? `Deleted ${filename}` : `Kept ${filename}`);
    },
  },
  {
    name: 'multi_input',
    description:
      'Asks for a name and a confirmation in the same round (runs as a task that waits for both inputs)',
    inputSchema: { type: 'object', properties: {} },
    longRunning: { estimatedMs: 500 },
    handler: (_args, ctx) => {
      if (!ctx.elicitation) {
        // The suite answers either request with the same content, { name, confirm }: since core refuses keys a
        // form does not ask for, each form lists both fields and requires its own.
        const both = { name: { type: 'string' }, confirm: { type: 'boolean' } };
        return elicit({
          requests: {
            name: {
              message: 'What is your name?',
              schema: { type: 'object', properties: both, required: ['name'] },
            },
            confirm: {
              message: 'Go ahead?',
              schema: { type: 'object', properties: both, required: ['confirm'] },
            },
          },
        });
      }
      // Core calls the handler only once both requests are answered, each checked against its schema.
      const { name, confirm } = ctx.elicitation.answers as {
        name: { name: string };
        confirm: { confirm: boolean };
      };
      return text(confirm.confirm ? `Done for ${name.name}` : `Stopped for ${name.name}`);
    },
  },
  {
    name: 'test_tool_with_task',
    description: 'Asks for a name synchronously, then finishes as a task',
    inputSchema: { type: 'object', properties: {} },
    handler: async (_args, ctx) => {
      if (!ctx.elicitation) {
        return elicit({
          message: 'What is your name?',
          schema: {
            title: 'user_name',
            type: 'object',
            properties: { name: { type: 'string' } },
            required: ['name'],
          },
        });
      }
      // Longer than the fixture's answer budget, so the call becomes a promise, hence a task.
      await sleep(1500, undefined, { signal: ctx.signal });
      return text(`Finished the task for ${String(ctx.elicitation.answers.name)}`);
    },
  },
];
