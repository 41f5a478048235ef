/**
 * Serves the conformance fixture on 127.0.0.1 (port from `PORT` or the first argument; default 0 = any) and
 * prints `listening <url>/mcp` once ready, which is what scripts/conformance.mjs waits for.
 */
import { serve } from '../../src/serve.js';
import { createConformanceFixture } from './fixture.js';

const port = Number(process.argv[2] ?? process.env.PORT ?? 0);
const { server, nativeTools, nativePrompts, tasksRequired } = createConformanceFixture();
const running = await serve(server, {
  port,
  host: '127.0.0.1',
  mcp: { nativeTools, nativePrompts, tasksRequired },
});
process.stdout.write(`listening ${running.url}/mcp\n`);
const stop = () => void running.close(1000).then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
