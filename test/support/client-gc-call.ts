/**
 * Run with `node --expose-gc --import tsx`: calls `argv[2]` (binding `argv[3]`) with a `timeout` of `argv[4]` ms
 * while forcing a full GC every 20 ms, and prints `{code, elapsed}` as one JSON line (test/client/gc-timeout.test.ts).
 */
import { type Binding, connect } from '../../src/client/index.js';

const [target, binding, timeout] = process.argv.slice(2) as [string, Binding, string];
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const collecting = setInterval(gc, 20);
const started = Date.now();
const client = await connect(target, { binding, ...(binding === 'mcp' ? { mcpRevision: 'stateless' } : {}) });
const code = await client.call('echo', { message: 'x' }, { timeout: Number(timeout) }).then(
  () => 'answered',
  (err: { code?: string }) => err.code ?? 'unknown',
);
clearInterval(collecting);
process.stdout.write(`${JSON.stringify({ code, elapsed: Date.now() - started })}\n`);
await client.close();
process.exit(0);
