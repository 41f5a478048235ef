// The baseline the gRPC benchmark compares against: a bare @grpc/grpc-js server with the same proto and the usual
// proto-loader options, whose CallTool echoes the request's `message` back as `content` with an ANSWER meta, and
// whose CallToolStream writes `count` partials (honouring write() backpressure) and a final message. No
// validation, no routing, no outcome model: mcplite's ratio to this is the cost of everything it adds.
import { once } from 'node:events';
import { join } from 'node:path';
import { loadPackageDefinition, Server, ServerCredentials } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { ROOT } from './support.js';

const definition = loadSync(join(ROOT, 'proto/mcplite.proto'), {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: false,
  oneofs: true,
});
const { mcplite } = loadPackageDefinition(definition);

const meta = () => ({ response_type: 'ANSWER', timestamp: Date.now(), processing_time_ms: 0 });

const server = new Server();
server.addService(mcplite.MCPLite.service, {
  GetTools(_call, callback) {
    callback(null, { tools: [] });
  },
  CallTool(call, callback) {
    const message = call.request.arguments?.fields?.message ?? { stringValue: '' };
    callback(null, {
      result: { fields: { content: { structValue: { fields: { message } } } } },
      meta: meta(),
    });
  },
  async CallToolStream(call) {
    const count = call.request.arguments?.fields?.count?.numberValue ?? 0;
    for (let i = 0; i < count; i++) {
      const partial = {
        result: { fields: { partial: { structValue: { fields: { i: { numberValue: i } } } } } },
        partial: true,
      };
      if (!call.write(partial)) await once(call, 'drain');
    }
    call.write({
      result: { fields: { content: { structValue: { fields: { sent: { numberValue: count } } } } } },
      meta: meta(),
    });
    call.end();
  },
});
const port = await new Promise((resolve, reject) =>
  server.bindAsync(
    `127.0.0.1:${Number(process.env.PORT ?? 0)}`,
    ServerCredentials.createInsecure(),
    (err, p) => (err ? reject(err) : resolve(p)),
  ),
);
console.log(`baseline grpc listening on 127.0.0.1:${port}`);
// The benchmark asks for the CPU time used so far, to report the server's CPU cost per call.
process.on('SIGUSR2', () => console.log(`CPU ${JSON.stringify(process.cpuUsage())}`));
process.on('SIGTERM', () => server.tryShutdown(() => process.exit(0)));
