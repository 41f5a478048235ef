// Tool search over a 5,000-tool catalog (docs/discovery.md): what a model reads to learn the tools, and how long a
// search takes. Listing: the characters of the listing a caller gets with `toolSearch` (a search tool and a call
// tool) against the whole catalog's, characters standing in for tokens (a tokenizer divides both alike); target
// at least 50x fewer. Latency: the search tool called in process (`server.callTool`, no socket: the ranking and
// the caller's visible listing, not the transport), after a warm-up; a median within a few milliseconds expected,
// reported but not judged (timings depend on the machine's load; the ratio does not).
import { createServer, defineTool, visibleTools } from '../../dist/src/index.js';
import { envNumber, fmt, percentile } from '../support.js';

const TOOLS = envNumber('BENCH_SEARCH_TOOLS', 5000);
const SEARCHES = envNumber('BENCH_SEARCH_RUNS', 2000);
const TARGET_RATIO = 50;
const EXPECTED_P50_MS = 5;

const VERBS = [
  'create',
  'delete',
  'list',
  'update',
  'archive',
  'export',
  'import',
  'sync',
  'validate',
  'summarise',
];
const OBJECTS = [
  'invoice',
  'ticket',
  'user',
  'order',
  'shipment',
  'report',
  'document',
  'project',
  'team',
  'alert',
];

function catalog() {
  const tools = [];
  for (let i = 0; tools.length < TOOLS; i++)
    for (const verb of VERBS)
      for (const object of OBJECTS)
        if (tools.length < TOOLS)
          tools.push(
            defineTool({
              name: `sys${i}_${verb}_${object}`,
              description: `${verb} a ${object} in the sys${i} system`,
              inputSchema: {
                type: 'object',
                properties: { id: { type: 'string', description: `The ${object} id` } },
              },
              handler: () => 'ok',
            }),
          );
  return tools;
}

export default async function run() {
  console.log(`\n## Tool search (${TOOLS} tools)`);
  const tools = catalog();
  const middleware = [visibleTools((tool) => !tool.name.startsWith('sys0_'))];
  const plain = createServer({ name: 'plain', tools, promiseStore: false, middleware });
  const searched = createServer({
    name: 'searched',
    tools,
    promiseStore: false,
    middleware,
    toolSearch: true,
  });
  const full = JSON.stringify({ tools: (await plain.listToolsFor({})).tools }).length;
  const surface = JSON.stringify({ tools: (await searched.listToolsFor({})).tools }).length;
  const ratio = full / surface;
  console.log(`listing: ${fmt(full)} chars whole, ${fmt(surface)} with toolSearch, ${fmt(ratio, 1)}x fewer`);
  const queries = [
    'archive a shipment in sys17',
    'export every report',
    'validate a user',
    'sync the team alerts',
  ];
  const times = [];
  for (let i = 0; i < SEARCHES + 200; i++) {
    const start = performance.now();
    await searched.callTool({ name: 'search_tools', arguments: { query: queries[i % queries.length] } });
    if (i >= 200) times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const p50 = percentile(times, 0.5);
  console.log(
    `search: p50 ${fmt(p50, 2)} ms, p99 ${fmt(percentile(times, 0.99), 2)} ms (${SEARCHES} searches)`,
  );
  await plain.close();
  await searched.close();
  // Pass/fail on the listing ratio only (characters, the same on any machine); the latency is reported, not
  // judged, so a busy machine cannot fail the section.
  const ok = ratio >= TARGET_RATIO;
  return {
    ok,
    summary: [
      `tool search: ${fmt(ratio, 1)}x smaller listing (target ${TARGET_RATIO}x), p50 ${fmt(p50, 2)} ms (expected within ${EXPECTED_P50_MS} ms on a quiet machine; not judged)`,
    ],
  };
}
