/**
 * An MCP server over stdio that attacks its client, written by hand (no SDK): it lists thousands of tools, and its
 * tools answer one giant message (`giant`), write lines that are not JSON before answering (`garbage`), or start
 * an endless stream of notifications and never answer (`flood`), or send `notifications/tools/list_changed` every
 * 5 ms for 2 s (`storm`). `ok` answers; `listings` answers how many `tools/list` requests it was sent. With
 * `--control` it also lists tools with control characters in their title, description and name; with
 * `--malformed`, a tool whose input schema is not an object's and one whose schema is 20,000 levels deep. Plain JavaScript, so it starts fast.
 *
 *   node hostile-stdio-server.mjs [--tools <n>] [--control] [--malformed]
 */
const at = process.argv.indexOf('--tools');
const count = at > 0 ? Number(process.argv[at + 1]) : 5000;
/** A schema nested `depth` levels deep, as JSON text (JSON.stringify itself overflows its stack on it). */
const deepJson = (depth) =>
  `${'{"type":"object","properties":{"x":'.repeat(depth)}{"type":"string"}${'}}'.repeat(depth)}`;
// `--control`: control characters in a title, a description and a name.
const control = process.argv.includes('--control')
  ? [
      {
        name: 'bell',
        title: 'Bell\x07 \x1b]0;owned\x07',
        description: 'Red \x1b[31mtext\x1b[0m and a bell\x07\nsecond line',
        inputSchema: { type: 'object' },
      },
      { name: 'esc\x1bname', description: 'A name with ESC', inputSchema: { type: 'object' } },
    ]
  : [];
// `--malformed`: tools whose schemas a gateway cannot serve, beside the good ones.
const malformed = process.argv.includes('--malformed')
  ? [
      { name: 'untyped', description: 'Not an object', inputSchema: { type: 'string' } },
      { name: 'deep', description: '20,000 levels', inputSchema: 'DEEP' },
    ]
  : [];
const tools = [
  ...control,
  ...malformed,
  ...['ok', 'giant', 'garbage', 'flood', 'storm', 'listings'].map((name) => ({
    name,
    description: `The ${name} tool`,
    inputSchema: { type: 'object' },
  })),
  ...Array.from({ length: count }, (_, i) => ({
    name: `filler-${i}`,
    description: 'x'.repeat(50),
    inputSchema: { type: 'object' },
  })),
];

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
let flooding = false;
let listings = 0;

function flood() {
  if (flooding) return;
  flooding = true;
  const line = `${JSON.stringify({
    jsonrpc: '2.0',
    method: 'notifications/message',
    params: { level: 'info', data: 'y'.repeat(1000) },
  })}\n`;
  const pump = () => {
    // Write while the pipe takes it; wait for drain otherwise, forever.
    while (process.stdout.write(line)) {}
    process.stdout.once('drain', pump);
  };
  pump();
}

let buffer = '';
process.stdin.setEncoding('utf8').on('data', (chunk) => {
  buffer += chunk;
  for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    if (!line.trim()) continue;
    const msg = JSON.parse(line);
    if (msg.id === undefined) continue;
    if (msg.method === 'initialize') {
      send({
        jsonrpc: '2.0',
        id: msg.id,
        result: {
          protocolVersion: msg.params.protocolVersion,
          capabilities: { tools: {}, logging: {} },
          serverInfo: { name: 'hostile', version: '1.0.0' },
        },
      });
    } else if (msg.method === 'tools/list') {
      listings++;
      const text = JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { tools } });
      process.stdout.write(`${text.replace('"DEEP"', () => deepJson(20_000))}\n`);
    } else if (msg.method === 'tools/call') {
      const name = msg.params.name;
      const text = (t) =>
        send({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: t }] } });
      if (name === 'giant') text('z'.repeat(8 * 1024 * 1024));
      else if (name === 'garbage') {
        process.stdout.write('this is not json\n{"jsonrpc": "2.0", "id": \n]]]\n');
        text('after garbage');
      } else if (name === 'flood') flood();
      else if (name === 'storm') {
        // One every 5 ms for 2 s: each arrives while the client may be listing again.
        const changed = `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })}\n`;
        const started = Date.now();
        const timer = setInterval(() => {
          process.stdout.write(changed);
          if (Date.now() - started < 2000) return;
          clearInterval(timer);
          text('stormed');
        }, 5);
      } else if (name === 'listings') text(String(listings));
      else text('ok');
    } else if (msg.method === 'ping') {
      send({ jsonrpc: '2.0', id: msg.id, result: {} });
    } else {
      send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
    }
  }
});
