// The stdio baseline: the least a node process can do to answer JSON-RPC lines on stdin (the echo's arguments as
// `content`), the stdio counterpart of bench/baseline-http.js.
import { createInterface } from 'node:readline';

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  let reply;
  try {
    const msg = JSON.parse(line);
    if (msg.id === undefined) return;
    reply = { jsonrpc: '2.0', id: msg.id, result: { content: msg.params?.arguments ?? {} } };
  } catch {
    reply = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
  }
  process.stdout.write(`${JSON.stringify(reply)}\n`);
});
