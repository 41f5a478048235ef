// The load generator of the WebSocket benchmark, run as its own process so that it shares no event loop with a
// server. It opens a few connections and keeps many calls in flight on each (a new call as each answer arrives),
// writes each request with its own id by string concatenation and parses only every 997th reply (to check it), so
// that the client costs little and the server is what is measured. Prints one JSON line with the result.
//   node bench/ws-load.js <url> <subprotocol|-> <warmupS> <durationS> <connections> <inFlight>
// With subprotocol `mcp` each connection first does MCP's handshake.
import WebSocket from 'ws';
import { percentile } from './support.js';

const [url, protocol, warmupS, durationS, connections, inFlight] = process.argv.slice(2);
const PREFIX = '{"jsonrpc":"2.0","id":';
const SUFFIX = ',"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello","repeat":2}}}';

function check(text) {
  const reply = JSON.parse(text);
  // MCP-lite answers the value as `content`, MCP as `structuredContent`.
  const value = protocol === 'mcp' ? reply.result?.structuredContent : reply.result?.content;
  if (reply.error !== undefined || value?.message !== 'hello') {
    throw new Error(`unexpected reply ${text}`);
  }
}

async function open() {
  const ws = new WebSocket(url, protocol === '-' ? [] : protocol, { perMessageDeflate: false });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  if (protocol === 'mcp') {
    // MCP over a connection is a session: the handshake first, as every MCP client does.
    const init = {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'bench', version: '0' },
    };
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: init }));
    await new Promise((resolve) => ws.once('message', resolve));
    ws.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  }
  return ws;
}

const sockets = await Promise.all(Array.from({ length: Number(connections) }, open));
let nextId = 1;

/** Runs every connection at `inFlight` calls for `seconds`; counts answers and samples latencies. */
function phase(seconds) {
  return new Promise((resolve, reject) => {
    const latencies = [];
    let answered = 0;
    let running = true;
    let pending = 0;
    const sentAt = new Map();
    const t0 = performance.now();
    const end = t0 + seconds * 1000;
    for (const ws of sockets) {
      const send = () => {
        const id = nextId++;
        // Every 16th call is timed (a map entry per call would cost the client more than it measures).
        if (id % 16 === 0) sentAt.set(id, performance.now());
        pending++;
        ws.send(PREFIX + id + SUFFIX);
      };
      ws.on('message', (data) => {
        pending--;
        answered++;
        const text = data.toString();
        if (answered % 997 === 0) {
          try {
            check(text);
          } catch (err) {
            reject(err);
          }
        }
        if (sentAt.size > 0) {
          const id = Number(/"id":(\d+)/.exec(text)?.[1]);
          const at = sentAt.get(id);
          if (at !== undefined) {
            latencies.push(performance.now() - at);
            sentAt.delete(id);
          }
        }
        if (running && performance.now() < end) send();
        else {
          running = false;
          if (pending === 0) finish();
        }
      });
      for (let i = 0; i < Number(inFlight); i++) send();
    }
    function finish() {
      for (const ws of sockets) ws.removeAllListeners('message');
      const secondsTaken = (performance.now() - t0) / 1000;
      latencies.sort((a, b) => a - b);
      const pct = (p) => percentile(latencies, p / 100) ?? 0;
      resolve({
        requests: answered,
        seconds: secondsTaken,
        rps: answered / secondsTaken,
        p50: pct(50),
        p99: pct(99),
      });
    }
  });
}

// Check a few replies in full first, so that no contender can win by answering errors.
await new Promise((resolve, reject) => {
  sockets[0].once('message', (d) => {
    try {
      check(d.toString());
      resolve();
    } catch (err) {
      reject(err);
    }
  });
  sockets[0].send(`${PREFIX}0${SUFFIX}`);
});
await phase(Number(warmupS));
const result = await phase(Number(durationS));
console.log(`RESULT ${JSON.stringify(result)}`);
for (const ws of sockets) ws.terminate();
