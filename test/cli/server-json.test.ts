/**
 * `mcplite server-json` (docs/discovery.md, "Publishing to the registry"): the registry's server.json of a tool
 * module in an npm package, printed by the real CLI and valid against the registry's published schema
 * (2025-12-11); the registry's own examples pass and fail the validator as they should; a package without a
 * reverse-DNS `mcpName` is refused with the reason.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run as runCli } from '../support/cli-process.js';
import { DISCOVERY_SPEC, serverJsonErrors } from '../support/discovery-schemas.js';

const dir = mkdtempSync(join(tmpdir(), 'mcplite-server-json-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MODULE = `export const serverOptions = { title: 'Weather', description: 'Forecasts for any city.' };
export const tools = [{ name: 'forecast', description: 'The forecast', handler: () => 'sunny' }];
`;

describe('mcplite server-json', { timeout: 60_000 }, () => {
  it('the validator takes the registry examples as the registry does', () => {
    for (const validity of ['valid', 'invalid'] as const) {
      const examples = join(DISCOVERY_SPEC, 'registry-server-json/examples', validity);
      for (const file of readdirSync(examples)) {
        const errors = serverJsonErrors(JSON.parse(readFileSync(join(examples, file), 'utf8')));
        if (validity === 'valid') expect(errors, file).toEqual([]);
        else expect(errors, file).not.toEqual([]);
      }
    }
  });

  it('prints a valid server.json from the module and its package.json', async () => {
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({
        name: '@acme/weather-mcp',
        version: '1.2.3',
        type: 'module',
        mcpName: 'io.github.acme/weather',
        repository: { type: 'git', url: 'git+https://github.com/acme/weather.git' },
        homepage: 'https://acme.example/weather',
      }),
    );
    writeFileSync(join(dir, 'tools.js'), MODULE);
    const cli = runCli([
      'server-json',
      join(dir, 'tools.js'),
      '--remote',
      'https://weather.acme.example/mcp',
      '--secret-env',
      'WEATHER_API_KEY',
    ]);
    expect(await cli.exited, cli.stderr()).toBe(0);
    const doc = JSON.parse(cli.stdout());
    expect(serverJsonErrors(doc)).toEqual([]);
    expect(doc).toEqual({
      $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
      name: 'io.github.acme/weather',
      title: 'Weather',
      description: 'Forecasts for any city.',
      version: '1.2.3',
      repository: { url: 'https://github.com/acme/weather', source: 'github' },
      websiteUrl: 'https://acme.example/weather',
      packages: [
        {
          registryType: 'npm',
          identifier: '@acme/weather-mcp',
          version: '1.2.3',
          runtimeHint: 'npx',
          transport: { type: 'stdio' },
          environmentVariables: [{ name: 'WEATHER_API_KEY', isRequired: true, isSecret: true }],
        },
      ],
      remotes: [{ type: 'streamable-http', url: 'https://weather.acme.example/mcp' }],
    });
  });

  it('refuses a package without a reverse-DNS mcpName, saying so', async () => {
    const bare = mkdtempSync(join(dir, 'bare-'));
    writeFileSync(
      join(bare, 'package.json'),
      JSON.stringify({ name: 'weather', version: '1.0.0', type: 'module' }),
    );
    writeFileSync(join(bare, 'tools.js'), MODULE);
    const cli = runCli(['server-json', join(bare, 'tools.js')]);
    expect(await cli.exited).not.toBe(0);
    expect(cli.stderr()).toContain('mcpName');
  });
});
