/**
 * A gateway in front of a hostile stdio upstream (`support/hostile-stdio-server.mjs`) stays fair and serving: a
 * flood of `list_changed` is relisted at most `maxRelists` times per window (counted by the upstream, so the bound
 * holds however loaded the machine), and one malformed tool (a schema that is not an object's, one 20,000 levels
 * deep) is left out, named in the log, while the upstream's other tools are served.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commandLine } from '../../src/client/detect.js';
import { type Client, connect } from '../../src/client/index.js';
import { createServer } from '../../src/create-server.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { openUpstream } from '../../src/gateway/proxy-tools.js';
import { type RunningServer, serve } from '../../src/serve.js';
import { ROOT } from '../support/cli-process.js';
import { type InProcessGateway, recordingLogger, startGateway } from '../support/gateway-in-process.js';

const HOSTILE = join(ROOT, 'test/support/hostile-stdio-server.mjs');

describe('gateway fairness and robustness', { timeout: 120_000 }, () => {
  const closers: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const close of closers) await close().catch(() => {});
  });

  it('a storm of list_changed is relisted at most maxRelists times per window, counted', async () => {
    const logger = recordingLogger();
    const server = createServer({ name: 'gateway', tools: [], logger });
    // A window longer than the test: every listing of the storm falls in one, whatever the machine's load.
    const gateway = new Gateway(server, { logger, maxRelists: 3, relistWindowMs: 600_000 });
    await gateway.add(
      'hostile',
      await openUpstream(commandLine(process.execPath, [HOSTILE, '--tools', '0']), {
        prefix: 'hostile',
        watchMs: 0,
        connect: { stderr: 'ignore' },
      }),
      true,
    );
    const running: RunningServer = await serve(server, { port: 0, grpcPort: false });
    const client: Client = await connect(`${running.url}/mcp-lite/v1/`);
    closers.push(async () => {
      await client.close();
      await running.close(200);
      await gateway.close();
    });
    const listings = async () =>
      Number(((await client.call('hostile_listings')) as { value: unknown }).value);
    const before = await listings();
    // Some 400 notifications over 2 s; the answer comes after the last of them.
    expect(await client.call('hostile_storm')).toMatchObject({ type: 'answer', value: 'stormed' });
    expect(await client.call('hostile_ok')).toMatchObject({ type: 'answer', value: 'ok' });
    const relisted = (await listings()) - before;
    // The first listing took one of the window's 3: at most 2 more, however many notifications came.
    expect(relisted).toBeGreaterThanOrEqual(1);
    expect(relisted).toBeLessThanOrEqual(2);
  });

  it('a malformed tool is left out with its reason; the upstream stays up and its other tools are served', async () => {
    const gw: InProcessGateway = await startGateway({
      mcpServers: {
        mal: { command: process.execPath, args: [HOSTILE, '--tools', '0', '--malformed'] },
      },
    });
    closers.push(() => gw.close());
    const names = (await gw.client.listTools()).map((t) => t.name);
    expect(names).toContain('mal_ok');
    expect(names).not.toContain('mal_untyped');
    expect(names).not.toContain('mal_deep');
    expect(await gw.client.call('mal_ok')).toMatchObject({ type: 'answer', value: 'ok' });
    const reasons = Object.fromEntries(
      gw.logs.filter((l) => l.msg === 'upstream tool refused').map((l) => [l.fields.tool, l.fields.reason]),
    );
    expect(reasons.mal_untyped).toMatch(/not an object/);
    expect(reasons.mal_deep).toMatch(/deeper than 64 levels/);
    expect(gw.gateway.statuses().mal?.state).toBe('up');
    expect(gw.logs.filter((l) => l.msg === 'upstream tools not listed')).toEqual([]);
  });
});
