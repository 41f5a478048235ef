import { connect } from './dist/src/client/index.js';
const client = await connect(`node ${process.cwd()}/bench/client-server.js --stdio`, { binding: 'stdio', stderr: 'inherit' });
const ARGS = { message: 'hi' };
for (let i = 0; i < 2000; i++) await client.call('echo', ARGS);
const t = performance.now(); let n = 0;
await Promise.all(Array.from({ length: 16 }, async () => { while (performance.now() - t < 4000) { await client.call('echo', ARGS); n++; } }));
console.log('calls/s', (n / 4).toFixed(0));
await client.close();
