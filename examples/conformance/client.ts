/**
 * The mcplite client under the official conformance suite's client scenarios (`npm run conformance`): the suite
 * runs this with the scenario's server URL as the last argument, the scenario name in MCP_CONFORMANCE_SCENARIO
 * and the revision in MCP_CONFORMANCE_PROTOCOL_VERSION (2026-07-28 is the stateless revision).
 */
import { connect } from '../../src/client/index.js';

const url = process.argv.at(-1)!;
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;

const client = await connect(url, {
  binding: 'mcp',
  clientInfo: { name: 'mcplite-conformance-client', version: '1.0.0' },
  ...(version ? { mcpRevision: version === '2026-07-28' ? 'stateless' : 'handshake' } : {}),
});
try {
  const tools = await client.listTools();
  for (const tool of tools) {
    if (scenario === 'initialize') break;
    const props = (tool.inputSchema as { properties?: Record<string, { type?: string }> }).properties ?? {};
    // Numbers for number parameters (add_numbers), nothing else: the scenarios check what arrives.
    const args = Object.fromEntries(
      Object.entries(props)
        .filter(([, p]) => p.type === 'number' || p.type === 'integer')
        .map(([k], i) => [k, i + 1]),
    );
    try {
      let outcome = await client.call(tool.name, args, { timeout: 20_000 });
      // Accept elicitations with nothing typed: the client fills in the schema's defaults (SEP-1034).
      for (let round = 0; outcome.type === 'elicitation' && round < 4; round++)
        outcome = await outcome.answer({});
      process.stdout.write(`${tool.name}: ${outcome.type}\n`);
    } catch (err) {
      // A scenario's server may refuse a call (it only checks what the client sent): report it, go on.
      process.stdout.write(`${tool.name}: error ${(err as Error).message}\n`);
    }
  }
} finally {
  await client.close();
}
