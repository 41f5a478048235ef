// The baseline the WebSocket benchmark compares against: the least a `ws` server can do for the same JSON-RPC
// message. It parses each message and answers the echo's arguments as `content`; no validation, no routing, no
// metadata, no bounds. mcplite's ratio to this is the cost of everything mcplite does on top of `ws`.
import { WebSocketServer } from 'ws';

const wss = new WebSocketServer({
  port: Number(process.env.PORT ?? 0),
  host: '127.0.0.1',
  perMessageDeflate: false,
});
wss.on('connection', (ws) => {
  ws.on('message', (data) => {
    let id = null;
    let body;
    try {
      const msg = JSON.parse(data.toString('utf8'));
      id = msg.id ?? null;
      body = JSON.stringify({ jsonrpc: '2.0', id, result: { content: msg.params?.arguments ?? null } });
    } catch {
      body = JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32700, message: 'Parse error' } });
    }
    ws.send(body);
  });
});
wss.on('listening', () => {
  console.log(`baseline ws listening on ws://127.0.0.1:${wss.address().port}`);
});
