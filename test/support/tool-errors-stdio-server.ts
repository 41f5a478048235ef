/**
 * The tool-errors fixture served over MCP stdio (`node --import tsx test/support/tool-errors-stdio-server.ts`),
 * for test/mcp/tool-errors.test.ts. stdout carries only protocol messages.
 */
import { serveMcpStdio } from '../../src/bindings/mcp/stdio/index.js';
import { createServer } from '../../src/create-server.js';
import { silentLogger } from '../../src/index.js';
import { toolErrorTools } from './tool-errors-fixture.js';

const server = createServer({ name: 'tool-errors', tools: toolErrorTools, logger: silentLogger });
const stdio = serveMcpStdio(server);
await stdio.closed;
await server.close();
process.exit(0);
