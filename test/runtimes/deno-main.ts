/** Serves the runtime app under Deno on a loopback port, printed as `listening <port>`. */
import { fetchHandler } from './app.js';

declare const Deno: {
  serve(
    options: { port: number; hostname: string; onListen(address: { port: number }): void },
    handler: typeof fetchHandler,
  ): unknown;
};

Deno.serve(
  {
    port: 0,
    hostname: '127.0.0.1',
    onListen: ({ port }) => console.log(`listening ${port}`),
  },
  fetchHandler,
);
