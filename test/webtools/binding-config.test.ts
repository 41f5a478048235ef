/**
 * The Webtools binding over real sockets: `ctx.config` as every binding sees it (the webtool's default
 * config, a server-side config, a request's config), and webtool definitions checked at server creation.
 */
import { describe, expect, it } from 'vitest';
import { startServer } from '../support/http-harness.js';
import { post } from './webtools-binding.fixtures.js';

describe('ctx.config on every binding', () => {
  const settings = {
    name: 'settings',
    description: 'Answers the config it was given',
    handler: (_args: unknown, ctx: { config: unknown }) => ({ config: ctx.config }),
  };
  const webtool = {
    name: 'tuned',
    version: '2.0.0',
    actions: ['settings'],
    configSchema: {
      type: 'object',
      properties: { level: { type: 'integer' }, mode: { type: 'string', default: 'fast' } },
    },
    defaultConfig: { level: 1 },
  };

  async function configs(options: Record<string, unknown>) {
    const t = await startServer({ tools: [settings], webtools: [webtool], ...options });
    try {
      const http = (await (
        await fetch(t.rpcUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'settings' } }),
        })
      ).json()) as any;
      const wt = `${t.running.url}/webtools/tuned/`;
      const plain = await post({ action: 'settings', request: {} }, {}, wt);
      const given = await post({ action: 'settings', request: {}, config: { level: 7 } }, {}, wt);
      return {
        http: http.result.content.config,
        plain: plain.body.data.config,
        given: given.body.data.config,
      };
    } finally {
      await t.close();
    }
  }

  it("other bindings see the webtool's default config; Webtools merges the request's over it", async () => {
    // The schema's defaults are filled in when the config is checked, the default config's included.
    expect(await configs({})).toEqual({
      http: { level: 1, mode: 'fast' },
      plain: { level: 1, mode: 'fast' },
      given: { level: 7, mode: 'fast' },
    });
  });

  it('a server-side config is what the other bindings see', async () => {
    expect(await configs({ config: { level: 3, region: 'eu' } })).toEqual({
      http: { level: 3, region: 'eu' },
      plain: { level: 1, mode: 'fast' },
      given: { level: 7, mode: 'fast' },
    });
  });

  it('definitions are checked when the server is created', async () => {
    const { createServer } = await import('../../src/create-server.js');
    const make = (w: Record<string, unknown>) => () =>
      createServer({ tools: [settings], webtools: [{ ...webtool, ...w }] as any });
    expect(make({ actions: ['nope'] })).toThrow(/no tool named "nope"/);
    expect(make({ version: 'two' })).toThrow(/semantic version/);
    expect(make({ versions: [{ version: '3.0.0' }] })).toThrow(/lower than the latest/);
    expect(make({ defaultConfig: { level: 'high' } })).toThrow(/level/);
    expect(make({ name: 'a/b' })).toThrow(/Invalid webtool name/);
  });
});
