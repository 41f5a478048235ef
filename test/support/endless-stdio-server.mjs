// An MCP server over stdio that shakes hands, then answers `tools/call` with one line that never ends
// (test/client/bounds.test.ts).
import { createInterface } from 'node:readline';

const send = (msg) => process.stdout.write(`${JSON.stringify(msg)}\n`);
createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'initialize')
    send({
      jsonrpc: '2.0',
      id: msg.id,
      result: {
        protocolVersion: msg.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'endless', version: '1' },
      },
    });
  else if (msg.method === 'tools/list') send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
  else if (msg.method === 'tools/call') {
    process.stdout.write(`{"jsonrpc":"2.0","id":${msg.id},"result":{"content":[{"type":"text","text":"`);
    const chunk = 'x'.repeat(64 * 1024);
    const more = () => {
      while (process.stdout.write(chunk));
      process.stdout.once('drain', more);
    };
    more();
  }
});
process.stdout.on('error', () => process.exit(0));
