/** Serves the runtime app under Bun on a loopback port, printed as `listening <port>`. */
import { fetchHandler } from './app.js';

declare const Bun: {
  serve(options: { port: number; hostname: string; fetch: typeof fetchHandler }): { port: number };
};

const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: fetchHandler });
console.log(`listening ${server.port}`);
