/**
 * `mcplite prompts` and `mcplite prompt <name> key=value...` as a user runs them (from source through tsx, output
 * through a pipe) against the demo over MCP-lite HTTP, MCP-lite gRPC, MCP and MCP over gRPC (`--binding mcp-grpc`,
 * or a target naming the service): the same listing and rendering.
 */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { createServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';

const ROOT = resolve(import.meta.dirname, '../..');
const MAIN = join(ROOT, 'src/cli/main.ts');
const run = promisify(execFile);

let running: RunningServer;

beforeAll(async () => {
  running = await serve(createServer({ tools, ...serverOptions }), { port: 0, grpcPort: 0 });
});
afterAll(async () => {
  await running.close(500);
});

/** Runs the CLI with stdout and stderr as pipes; never throws (the exit code is part of the result). */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', MAIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '' },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

// Each command is a fresh Node process compiling TypeScript through tsx: seconds each on a busy machine.
const SLOW = 90_000;

describe('mcplite prompts / prompt', { timeout: SLOW }, () => {
  it('lists the prompts as text, the same as JSON over gRPC and MCP', async () => {
    const lite = `${running.url}/mcp-lite/v1/`;
    const [table, grpc, mcp, mcpGrpc] = await Promise.all([
      cli('prompts', lite),
      cli('prompts', `grpc://${running.grpc!.address}`, '--json'),
      cli('prompts', `${running.url}/mcp`, '--json'),
      cli('prompts', `grpc://${running.grpc!.address}`, '--binding', 'mcp-grpc', '--json'),
    ]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(
      /^summarize_document {2}Asks for a short summary of one document.*\(document_id\)$/m,
    );
    expect(grpc.code).toBe(0);
    expect(JSON.parse(grpc.stdout)).toEqual(JSON.parse(mcp.stdout));
    expect(mcpGrpc.code).toBe(0);
    expect(JSON.parse(mcpGrpc.stdout)).toEqual(JSON.parse(mcp.stdout));
    expect(JSON.parse(grpc.stdout).prompts[0]).toMatchObject({ name: 'summarize_document' });
  });

  it('renders a prompt with key=value arguments; an unknown prompt fails with a suggestion', async () => {
    const lite = `${running.url}/mcp-lite/v1/`;
    const [text, json, unknown, overMcpGrpc] = await Promise.all([
      cli('prompt', lite, 'summarize_document', 'document_id=doc_001'),
      cli('prompt', `grpc://${running.grpc!.address}`, 'summarize_document', 'document_id=doc_001', '--json'),
      cli('prompt', lite, 'summarize_documents', 'document_id=doc_001'),
      cli(
        'prompt',
        `grpc://${running.grpc!.address}/model_context_protocol.Mcp`,
        'summarize_document',
        'document_id=doc_001',
        '--json',
      ),
    ]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^\[user\]\nSummarize this document in three sentences\./m);
    const rendered = JSON.parse(json.stdout);
    expect(rendered.messages[0]).toMatchObject({ role: 'user', content: { type: 'text' } });
    expect(text.stdout).toContain(rendered.messages[0].content.text.split('\n')[0]);
    expect(overMcpGrpc.code).toBe(0);
    expect(JSON.parse(overMcpGrpc.stdout)).toEqual(rendered);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/summarize_document/);
  });
});
