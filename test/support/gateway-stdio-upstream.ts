/**
 * A mcplite server over MCP stdio for the gateway tests (`node --import tsx test/support/gateway-stdio-upstream.ts
 * [--pid-file <file>] [--down-file <file>]`): `pid` (to kill it), `echo`, and `grow`, which adds a tool to its own
 * catalog so that it sends `notifications/tools/list_changed`. While the down file exists it exits at once on
 * start (an upstream that cannot come back yet). Files are arguments: the MCP SDK starts servers with a minimal env.
 */
import { appendFileSync, existsSync } from 'node:fs';
import { serveMcpStdio } from '../../src/bindings/mcp/stdio/index.js';
import { createServer } from '../../src/create-server.js';

const option = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const downFile = option('--down-file');
const pidFile = option('--pid-file');
if (downFile && existsSync(downFile)) process.exit(3);
if (pidFile) appendFileSync(pidFile, `${process.pid}\n`);

const server = createServer({
  name: 'gateway-stdio-upstream',
  tools: [
    { name: 'pid', description: 'Its process id', handler: () => process.pid },
    {
      name: 'echo',
      description: 'Says the message back',
      inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
      handler: ({ message }: Record<string, unknown>) => message,
    },
    {
      name: 'grow',
      description: 'Adds the tool "grown"',
      handler: () => {
        if (!server.catalog.get('grown'))
          server.catalog.add({
            name: 'grown',
            description: 'Added at run time',
            handler: () => 'grown here',
          });
        return 'grew';
      },
    },
  ],
});
const stdio = serveMcpStdio(server);
await stdio.closed;
await server.close();
process.exit(0);
