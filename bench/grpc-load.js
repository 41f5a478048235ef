// The load generator of the gRPC benchmark, run as its own process so that it neither shares a core's event loop
// with a server nor with the other contender. It speaks grpc-js with the request encoded once and the replies
// kept as bytes (decoding only samples, to check them), so that the client costs as little as it can and the
// server is what is measured. Prints one JSON line with the result.
//   node bench/grpc-load.js unary  <address> <warmupS> <durationS> <concurrency>
//   node bench/grpc-load.js stream <address> <count> <streams>
import { join } from 'node:path';
import { Client, credentials } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { percentile, ROOT } from './support.js';

const [mode, address, ...rest] = process.argv.slice(2);
const types = loadSync(join(ROOT, 'proto/mcplite.proto'), {
  keepCase: true,
  longs: String,
  enums: String,
  oneofs: true,
});
const ToolRequest = types['mcplite.ToolRequest'];
const ToolResponse = types['mcplite.ToolResponse'];
const identity = (b) => b;
const client = new Client(address, credentials.createInsecure());

function check(bytes, predicate, what) {
  const reply = ToolResponse.deserialize(bytes);
  if (!predicate(reply)) throw new Error(`${what}: unexpected reply ${JSON.stringify(reply)}`);
}

async function unary(warmupS, durationS, concurrency) {
  const request = ToolRequest.serialize({
    name: 'echo',
    arguments: { fields: { message: { stringValue: 'hello' } } },
  });
  const isEcho = (r) =>
    r.meta?.response_type === 'ANSWER' &&
    r.result?.fields?.content?.structValue?.fields?.message?.stringValue === 'hello';
  const call = () =>
    new Promise((resolve, reject) =>
      client.makeUnaryRequest('/mcplite.MCPLite/CallTool', identity, identity, request, (err, reply) =>
        err ? reject(err) : resolve(reply),
      ),
    );
  for (let i = 0; i < 5; i++) check(await call(), isEcho, 'CallTool');

  async function phase(seconds) {
    const latencies = [];
    let errors = 0;
    let n = 0;
    const end = performance.now() + seconds * 1000;
    const worker = async () => {
      while (performance.now() < end) {
        const started = performance.now();
        try {
          const reply = await call();
          // Every 997th reply is decoded and checked, so a contender cannot win by answering garbage.
          if (++n % 997 === 0) check(reply, isEcho, 'CallTool');
          latencies.push(performance.now() - started);
        } catch {
          errors++;
        }
      }
    };
    const t0 = performance.now();
    await Promise.all(Array.from({ length: concurrency }, worker));
    return { seconds: (performance.now() - t0) / 1000, latencies, errors };
  }

  const warm = await phase(warmupS);
  const { seconds, latencies, errors } = await phase(durationS);
  latencies.sort((a, b) => a - b);
  const pct = (p) => percentile(latencies, p / 100) ?? 0;
  return {
    requests: latencies.length,
    // The calls outside `requests` (warm-up, checks, errors), so that the server's CPU time can be divided by
    // every call it answered.
    otherRequests: warm.latencies.length + warm.errors + errors + 5,
    seconds,
    rps: latencies.length / seconds,
    p50: pct(50),
    p99: pct(99),
    errors,
  };
}

async function stream(count, streams) {
  const request = ToolRequest.serialize({
    name: 'ticker',
    arguments: { fields: { count: { numberValue: count } } },
  });
  const one = () =>
    new Promise((resolve, reject) => {
      const call = client.makeServerStreamRequest(
        '/mcplite.MCPLite/CallToolStream',
        identity,
        identity,
        request,
      );
      let messages = 0;
      let last;
      call.on('data', (m) => {
        messages++;
        last = m;
      });
      call.on('error', reject);
      call.on('end', () => {
        check(last, (r) => r.meta?.response_type === 'ANSWER', 'CallToolStream final');
        resolve(messages - 1);
      });
    });
  await one(); // warm-up
  const t0 = performance.now();
  const partials = (await Promise.all(Array.from({ length: streams }, one))).reduce((a, b) => a + b, 0);
  const seconds = (performance.now() - t0) / 1000;
  if (partials !== count * streams) throw new Error(`expected ${count * streams} partials, got ${partials}`);
  return { partials, seconds, perSecond: partials / seconds };
}

const result = mode === 'unary' ? await unary(...rest.map(Number)) : await stream(...rest.map(Number));
console.log(`RESULT ${JSON.stringify(result)}`);
client.close();
