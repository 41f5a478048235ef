// The greedy client of the gRPC fairness benchmark, a process of its own on one connection: it starts one
// long-running call, then sends `count` redeem waits of its promise at once (each may wait `waitMs`), and prints
// FLOODED once they are all handed to grpc-js, then RESULT with how they ended when they all have.
//   node bench/grpc-flood.js <address> <count> <waitMs>
import { join } from 'node:path';
import { Client, credentials, status } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { ROOT } from './support.js';

const [address, countText, waitText] = process.argv.slice(2);
const count = Number(countText);
const waitMs = Number(waitText);
const types = loadSync(join(ROOT, 'proto/mcplite.proto'), { keepCase: true, longs: String, enums: String });
const ToolRequest = types['mcplite.ToolRequest'];
const ToolResponse = types['mcplite.ToolResponse'];
const client = new Client(address, credentials.createInsecure());
const call = (request) =>
  new Promise((resolve) =>
    client.makeUnaryRequest(
      '/mcplite.MCPLite/CallTool',
      (b) => b,
      (b) => b,
      ToolRequest.serialize(request),
      { deadline: Date.now() + waitMs + 60_000 },
      (err, reply) => resolve(err ? { code: err.code } : { reply }),
    ),
  );

const started = await call({ name: 'slow', arguments: { fields: {} } });
if (!started.reply) throw new Error(`slow: gRPC status ${started.code}`);
const token = ToolResponse.deserialize(started.reply).meta?.promise_token;
if (!token) throw new Error('slow did not answer with a promise');
const redeem = {
  name: 'redeem',
  arguments: { fields: { promise: { stringValue: token }, wait_ms: { numberValue: waitMs } } },
};
const ended = { answered: 0, refused: 0, other: 0 };
const calls = Array.from({ length: count }, () =>
  call(redeem).then((r) => {
    if (r.reply) ended.answered++;
    else if (r.code === status.RESOURCE_EXHAUSTED) ended.refused++;
    else ended.other++;
  }),
);
console.log('FLOODED');
await Promise.all(calls);
console.log(`RESULT ${JSON.stringify(ended)}`);
client.close();
