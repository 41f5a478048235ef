/** The client fixture served over MCP stdio (`node --import tsx test/support/client-stdio-server.ts`). */
import { serveMcpStdio } from '../../src/bindings/mcp/stdio/index.js';
import { createServer } from '../../src/create-server.js';
import { clientTools } from './client-fixture.js';

const server = createServer({
  name: 'client-fixture',
  version: '1.0.0',
  tools: clientTools,
  // The client's own promise handling is tested: the call answers with the promise at once.
  mcpInlineWaitMs: 0,
});
const stdio = serveMcpStdio(server);
await stdio.closed;
await server.close();
process.exit(0);
