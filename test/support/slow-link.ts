/**
 * A TCP relay to a real server that delays what goes each way by `delayMs`, as a slow network does: what one
 * replica sees of a shared Redis when its link is slower than another replica's (its writes land late, its
 * replies come late). Bytes are relayed unchanged and in order (every chunk waits the same delay).
 */
import { connect, createServer, type Socket } from 'node:net';

export interface SlowLink {
  /** The target's URL with the relay's host and port in place of the target's. */
  url: string;
  close(): Promise<void>;
}

/** Starts a relay on 127.0.0.1 to the host and port of `targetUrl` (`redis://host:port/...`). */
export async function slowLink(targetUrl: string, delayMs: number): Promise<SlowLink> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    const late = (to: Socket) => (chunk: Buffer) =>
      setTimeout(() => {
        if (!to.destroyed) to.write(chunk);
      }, delayMs);
    client.on('data', late(upstream));
    upstream.on('data', late(client));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('slowLink: no port');
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String(address.port);
  return {
    url: url.href,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
