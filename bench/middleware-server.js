// The server of the middleware section: the demo's tools served by mcplite from dist in its own process, over
// MCP-lite HTTP only, announcing its URL on stdout. With `--middleware` one user middleware that does nothing
// (`(op, next) => next()`) is installed, so that the section can price the chain against the same server without it.
import { serverOptions, tools } from '../dist/examples/demo/index.js';
import { createServer } from '../dist/src/index.js';
import { serve } from '../dist/src/node.js';
import { exitOnSigterm } from './support.js';

const withMiddleware = process.argv.includes('--middleware');
const server = createServer({
  ...serverOptions,
  tools,
  ...(withMiddleware ? { middleware: [(_op, next) => next()] } : {}),
});
const running = await serve(server, { port: 0 });
console.log(`middleware bench listening ${running.url}`);
exitOnSigterm(running, () => server.close());
