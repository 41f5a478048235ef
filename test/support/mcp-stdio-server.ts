/**
 * The demo served over MCP stdio, for the interop tests (`node --import tsx test/support/mcp-stdio-server.ts`).
 * Logs go to stderr; stdout carries only protocol messages.
 */
import { serverOptions, tools } from '../../examples/demo/index.js';
import { serveMcpStdio } from '../../src/bindings/mcp/stdio/index.js';
import { createServer } from '../../src/create-server.js';

const server = createServer({ ...serverOptions, tools, mcpInlineWaitMs: 0 });
const stdio = serveMcpStdio(server);
await stdio.closed;
await server.close();
process.exit(0);
