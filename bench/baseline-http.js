// The baseline the HTTP benchmark compares against: the least a node:http JSON-RPC server can do for the same
// request. It reads the body, parses it and answers the echo's arguments as `content`; no validation, no routing,
// no metadata. mcplite's ratio to this is the cost of everything mcplite does on top of node:http.
import { createServer } from 'node:http';

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let id = null;
    let body;
    try {
      const msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      id = msg.id ?? null;
      // The echo's arguments: JSON-RPC `params.arguments`, or a Webtools execute's `request` (the webtools section).
      const args = msg.params?.arguments ?? msg.request ?? null;
      body = JSON.stringify({ jsonrpc: '2.0', id, result: { content: args } });
    } catch {
      body = JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32700, message: 'Parse error' } });
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  });
});

// Under valgrind a loaded machine can leave a connection idle past node's 5 s default between two requests, and a
// request sent as the server closes it fails: the instruction section sets a longer timeout (still one per socket).
if (process.env.BASELINE_KEEP_ALIVE_MS) server.keepAliveTimeout = Number(process.env.BASELINE_KEEP_ALIVE_MS);

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`baseline listening on http://127.0.0.1:${server.address().port}`);
});
