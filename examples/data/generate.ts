/**
 * Generates examples/data/documents.json, the demo's document collection.
 *
 * Deterministic on purpose: a seeded PRNG drives every choice, so running it again gives byte-identical output
 * and the committed file can be checked against its source. The text comes from sentence templates and
 * per-category vocabularies, varied enough that ranked search, term statistics and reports have something real
 * to work with. A handful of documents are about the Model Context Protocol, so the spec's Appendix A example
 * query ("MCP specification") finds them.
 *
 * Run: npx tsx examples/data/generate.ts
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

import type { Document } from '../demo/documents.js';

const SEED = 0x6d63706c; // "mcpl"
const COUNT = 344;

// mulberry32: tiny, fast and good enough for picking words; Math.random would not be reproducible.
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Reset by generate(), so that every run (and every test that calls it) starts from the same seed.
let rand = prng(SEED);
const int = (min: number, max: number) => min + Math.floor(rand() * (max - min + 1));
const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
// A first word with capitals of its own ("gRPC streaming") is a name and stays as it is.
const capitalise = (s: string) => (/^\S*[A-Z]/.test(s) ? s : s.charAt(0).toUpperCase() + s.slice(1));
// Words a title keeps in lower case (except at the start).
const SMALL_WORDS = new Set([
  'a',
  'an',
  'and',
  'at',
  'for',
  'in',
  'of',
  'on',
  'or',
  'the',
  'to',
  'with',
  'vs',
]);
const titleCase = (s: string) =>
  s
    .split(' ')
    // Words with capitals of their own (gRPC, PostgreSQL) are names: leave them as they are.
    .map((w, i) => ((i > 0 && SMALL_WORDS.has(w)) || /[A-Z]/.test(w) ? w : capitalise(w)))
    .join(' ');

/** What makes a category sound like itself. */
interface Vocabulary {
  topics: string[];
  systems: string[];
  metrics: string[];
  problems: string[];
  practices: string[];
  titles: string[];
  sentences: string[];
}

const TEAMS = [
  'the platform team',
  'the payments team',
  'the search team',
  'the data engineering group',
  'the infrastructure team',
  'the mobile team',
  'the developer experience group',
  'the reliability team',
  'the analytics team',
  'the identity team',
  'a small working group',
  'the core services team',
];

const COMPANIES = [
  'Northwind',
  'Acme Logistics',
  'Globex',
  'Initech',
  'Umbrella Health',
  'Hooli',
  'Vandelay Imports',
  'Stark Retail',
];

const AUTHORS: Array<{ name: string; beats: string[] }> = [
  { name: 'Amara Okafor', beats: ['protocols', 'networking'] },
  { name: 'Bjorn Lindqvist', beats: ['databases', 'operations'] },
  { name: 'Chen Wei', beats: ['machine-learning', 'databases'] },
  { name: 'Daniela Ruiz', beats: ['security', 'protocols'] },
  { name: 'Emeka Nwosu', beats: ['finance', 'product'] },
  { name: 'Farah Haddad', beats: ['product', 'machine-learning'] },
  { name: 'Gustavo Pereira', beats: ['networking', 'operations'] },
  { name: 'Hana Suzuki', beats: ['machine-learning'] },
  { name: 'Ines Carvalho', beats: ['finance'] },
  { name: 'Jonas Becker', beats: ['security', 'networking'] },
  { name: 'Kavya Iyer', beats: ['databases', 'machine-learning'] },
  { name: "Liam O'Connor", beats: ['operations', 'security'] },
  { name: 'Mei Lin', beats: ['protocols', 'product'] },
  { name: 'Nikolai Petrov', beats: ['databases', 'networking'] },
  { name: 'Olivia Bennett', beats: ['product', 'finance'] },
  { name: 'Priya Raman', beats: ['protocols', 'machine-learning'] },
  { name: 'Quentin Moreau', beats: ['finance', 'operations'] },
  { name: 'Rosa Jimenez', beats: ['security'] },
  { name: 'Samuel Adeyemi', beats: ['operations', 'networking'] },
  { name: 'Tomasz Nowak', beats: ['protocols', 'databases'] },
  { name: 'Yara Haddad', beats: ['product'] },
  { name: 'Zoe Fischer', beats: ['machine-learning', 'security'] },
];

const CATEGORIES: Record<string, Vocabulary> = {
  protocols: {
    topics: [
      'JSON-RPC error handling',
      'API versioning',
      'server-sent events',
      'gRPC streaming',
      'schema evolution',
      'idempotent requests',
      'protocol negotiation',
      'long-running operations',
      'webhook delivery',
      'pagination cursors',
      'tool discovery',
    ],
    systems: ['JSON-RPC 2.0', 'gRPC', 'HTTP/2', 'Protocol Buffers', 'OpenAPI', 'GraphQL', 'WebSocket', 'SSE'],
    metrics: ['request latency', 'payload size', 'error rate', 'client retry volume', 'time to first byte'],
    problems: [
      'clients that silently ignore unknown fields',
      'ambiguous error codes',
      'breaking changes shipped without a version bump',
      'retries that duplicate side effects',
      'streams that never send a final message',
    ],
    practices: [
      'publishing a machine-readable schema for every endpoint',
      'returning structured error data with a suggestion',
      'keeping the server stateless between calls',
      'using opaque, expiring tokens for long-running work',
      'sending heartbeats on idle streams',
    ],
    titles: [
      'Designing {topic} That Clients Can Rely On',
      'A Field Guide to {Topic} in {system}',
      '{Topic}: What the Specifications Leave Out',
      'Getting {Topic} Right the First Time',
    ],
    sentences: [
      'A well-designed protocol makes the common case trivial and the rare case possible, and {topic} is where that balance is tested.',
      'The {system} specification says little about {topic}, so most implementations fill the gap in slightly different ways.',
      'We found that {problem} were the root cause of most integration bugs reported by partners.',
      'Versioning the wire format separately from the library version gave clients room to upgrade on their own schedule.',
      'Error responses now carry the requested name, the available alternatives and a short suggestion, which cut support tickets noticeably.',
      'Streaming responses must distinguish partial messages from the final one, otherwise clients cannot tell when they are done.',
      'A promise token lets a server answer immediately while the real work continues in the background.',
      'Clients should treat tokens as opaque strings and never try to parse meaning out of them.',
    ],
  },
  databases: {
    topics: [
      'query planning',
      'write-ahead logging',
      'index maintenance',
      'replication lag',
      'connection pooling',
      'schema migrations',
      'multi-version concurrency control',
      'table partitioning',
      'vacuum tuning',
      'columnar storage',
      'point-in-time recovery',
    ],
    systems: ['PostgreSQL', 'MySQL', 'SQLite', 'ClickHouse', 'Redis', 'Cassandra', 'DuckDB', 'MongoDB'],
    metrics: ['p99 query latency', 'replication lag', 'cache hit ratio', 'disk usage', 'lock wait time'],
    problems: [
      'sequential scans on tables that had quietly grown to billions of rows',
      'long-running transactions that blocked vacuum',
      'migrations that took exclusive locks during peak traffic',
      'connection storms after every deploy',
      'indexes nobody remembered creating',
    ],
    practices: [
      'running every migration against a production-sized copy first',
      'tracking slow queries with their plans, not just their durations',
      'sizing the connection pool from measured concurrency',
      'partitioning by time so old data can be dropped cheaply',
      'testing restores as often as backups',
    ],
    titles: [
      '{Topic} in {system}: Lessons Learned',
      'Tuning {topic} for Write-Heavy Workloads',
      'What We Learned Moving {topic} to {system}',
      'A Checklist for {Topic}',
    ],
    sentences: [
      'Most of the gains came from reading query plans carefully rather than from adding hardware.',
      'In {system}, {topic} interacts with autovacuum in ways that are easy to overlook until disk usage spikes.',
      'We moved the reporting workload to a read replica, which brought {metric} back within budget.',
      'A composite index on the customer and created-at columns turned a ten-second query into a twelve-millisecond one.',
      'Backups that have never been restored are a hope, not a plan.',
      'The migration ran in batches of ten thousand rows so that replication could keep up.',
      'Columnar storage made the analytical queries fast but punished the single-row lookups the API depended on.',
    ],
  },
  security: {
    topics: [
      'secret rotation',
      'bearer token handling',
      'dependency scanning',
      'least-privilege access',
      'incident response',
      'threat modeling',
      'DNS rebinding protection',
      'audit logging',
      'supply chain security',
      'multi-factor authentication',
    ],
    systems: [
      'OAuth 2.1',
      'OpenID Connect',
      'Vault',
      'SBOM tooling',
      'WebAuthn',
      'mTLS',
      'a web application firewall',
    ],
    metrics: [
      'mean time to detect',
      'mean time to remediate',
      'number of long-lived credentials',
      'open critical findings',
    ],
    problems: [
      'tokens that ended up in application logs',
      'service accounts with far more access than they needed',
      'a forgotten staging server exposed to the internet',
      'unpinned dependencies pulled in during a build',
      'local development servers reachable from any web page',
    ],
    practices: [
      'comparing secrets in constant time',
      'never logging request bodies or credentials',
      'rotating keys on a schedule rather than after an incident',
      'checking the Host and Origin headers on local servers',
      'reviewing access grants every quarter',
    ],
    titles: [
      'A Pragmatic Approach to {Topic}',
      '{Topic} Without the Theater',
      'Postmortem: When {Topic} Failed Us',
      'Hardening {system}: {Topic} in Practice',
    ],
    sentences: [
      'The review found {problem}, none of which any single team had noticed.',
      'Security work is most effective when it removes a whole class of mistakes instead of fixing them one by one.',
      'We now treat {topic} as part of the definition of done, not as a separate project.',
      'After the change, mean time to remediate dropped from weeks to days.',
      'Every credential now has an owner, an expiry date and a documented rotation procedure.',
      'Threat modeling sessions are short, frequent and attended by the engineers who will write the code.',
      'Attackers rarely need a zero-day when a leaked token will do.',
    ],
  },
  'machine-learning': {
    topics: [
      'retrieval-augmented generation',
      'embedding drift',
      'model evaluation',
      'feature stores',
      'tool calling for language models',
      'prompt regression testing',
      'data labeling',
      'ranking models',
      'inference cost',
      'fine-tuning small models',
    ],
    systems: [
      'a transformer encoder',
      'BM25',
      'a vector index',
      'gradient-boosted trees',
      'a small language model',
      'an LLM agent',
    ],
    metrics: [
      'recall at ten',
      'mean reciprocal rank',
      'inference latency',
      'cost per thousand requests',
      'offline accuracy',
    ],
    problems: [
      'training data that leaked information from the evaluation set',
      'embeddings computed with two different model versions',
      'offline metrics that did not predict online behaviour',
      'agents that called the wrong tool because descriptions were vague',
      'prompts that changed behaviour after a model upgrade',
    ],
    practices: [
      'keeping a frozen evaluation set under version control',
      'combining lexical and semantic retrieval',
      'writing tool descriptions for the model, not for humans',
      'logging every model input and output with its version',
      'shipping behind a shadow deployment first',
    ],
    titles: [
      '{Topic} in Production: What Actually Matters',
      'Measuring {topic} Honestly',
      'From Notebook to Service: {Topic}',
      '{Topic} with {system}: A Case Study',
    ],
    sentences: [
      "A simple baseline built on {system} beat the first neural model on {metric}, which reset everyone's expectations.",
      'We learned that {problem} can erase months of modelling work.',
      'Language models pick tools based on names, descriptions and schemas, so those deserve as much care as the code.',
      'Hybrid retrieval combining BM25 with embeddings improved recall at ten by eleven points.',
      'Evaluation is the product: without a trusted benchmark, every change is an argument.',
      'Inference cost fell by half once requests were batched and the model was quantised.',
      'The agent asks the user for missing details instead of guessing, which made its answers far more trustworthy.',
    ],
  },
  networking: {
    topics: [
      'load balancing',
      'TLS termination',
      'connection reuse',
      'DNS failover',
      'HTTP/2 multiplexing',
      'rate limiting',
      'service mesh adoption',
      'edge caching',
      'IPv6 migration',
      'timeout budgets',
    ],
    systems: ['Envoy', 'NGINX', 'HAProxy', 'a CDN', 'Kubernetes ingress', 'BGP anycast', 'QUIC'],
    metrics: ['tail latency', 'connection churn', 'cache hit rate', 'packet loss', 'TLS handshake time'],
    problems: [
      'idle timeouts that disagreed between the proxy and the application',
      'keep-alive connections pinned to a single backend',
      'retries that multiplied load during an outage',
      'DNS records with a one-day TTL during a failover',
      'health checks that passed while the service was failing',
    ],
    practices: [
      'setting timeouts from the outside in, each layer shorter than the one before',
      'adding jitter to every retry',
      'measuring latency at the client, not only at the server',
      'draining connections gracefully before a deploy',
      'keeping DNS TTLs short for anything that might fail over',
    ],
    titles: [
      '{Topic} at the Edge',
      'Untangling {topic} with {system}',
      'The Hidden Cost of {Topic}',
      'A Short Guide to {Topic}',
    ],
    sentences: [
      'Most of our {metric} came from {problem}.',
      'Graceful shutdown means stop accepting, finish what is in flight, then close; skipping the middle step drops requests.',
      'We replaced the hand-written proxy configuration with {system} and gained consistent retries and circuit breaking.',
      'A timeout budget that shrinks at every hop keeps one slow dependency from stalling the whole request.',
      'Server-sent events travel through most proxies unchanged, as long as buffering is turned off.',
      'HTTP/2 multiplexing removed head-of-line blocking between requests but not within a single TCP connection.',
    ],
  },
  finance: {
    topics: [
      'quarterly results',
      'revenue recognition',
      'cash flow forecasting',
      'budget planning',
      'cloud cost allocation',
      'unit economics',
      'pricing changes',
      'audit preparation',
      'subscription churn',
      'operating margin',
    ],
    systems: [
      'the general ledger',
      'the billing platform',
      'the planning model',
      'the data warehouse',
      'the ERP system',
    ],
    metrics: [
      'gross margin',
      'operating margin',
      'annual recurring revenue',
      'customer acquisition cost',
      'free cash flow',
    ],
    problems: [
      'invoices recorded in the wrong period',
      'cloud spend that no team felt responsible for',
      'discounts approved outside the pricing policy',
      "forecasts built on last year's assumptions",
      'manual spreadsheets reconciled by hand every month',
    ],
    practices: [
      'closing the books within five working days',
      'tagging every cloud resource with a cost owner',
      'reviewing the forecast monthly against actuals',
      'separating one-off revenue from recurring revenue',
      'publishing unit economics alongside product metrics',
    ],
    titles: [
      '{Topic}: Q{quarter} {year} Review',
      'Understanding {Topic}',
      '{Topic} and What It Means for Planning',
      'How {company} Approaches {Topic}',
    ],
    sentences: [
      'Revenue for Q{quarter} {change} by {percent}% compared with the same quarter last year.',
      '{Metric} {change} to {percent}% as infrastructure costs were renegotiated.',
      'The quarterly results were driven mostly by expansion revenue from existing customers.',
      'Finance worked with {team} to trace {problem} back to their source.',
      'Cloud costs are now allocated to the products that incur them, which changed several pricing conversations.',
      'The forecast for next year assumes modest growth and keeps hiring flat in the first half.',
      'Operating expenses grew more slowly than revenue for the fourth consecutive quarter.',
      'Churn among small customers remains the largest risk to annual recurring revenue.',
    ],
  },
  operations: {
    topics: [
      'on-call rotations',
      'incident postmortems',
      'capacity planning',
      'deployment pipelines',
      'observability',
      'service level objectives',
      'runbook automation',
      'chaos engineering',
      'graceful shutdown',
      'log retention',
    ],
    systems: [
      'Kubernetes',
      'Terraform',
      'Prometheus',
      'OpenTelemetry',
      'structured JSON logs',
      'a canary pipeline',
    ],
    metrics: [
      'mean time to recovery',
      'change failure rate',
      'deployment frequency',
      'pages per week',
      'error budget burn',
    ],
    problems: [
      'alerts that fired every night and were always ignored',
      'deploys that killed in-flight requests',
      'dashboards nobody looked at until an outage',
      'runbooks that described a system that no longer existed',
      'capacity added only after the pager went off',
    ],
    practices: [
      'writing blameless postmortems within a week',
      'alerting on symptoms users feel rather than on causes',
      'deploying small changes many times a day',
      'emitting structured logs with a request id on every line',
      'rehearsing failovers during business hours',
    ],
    titles: [
      '{Topic} Without Burnout',
      'What {Topic} Taught Us About Reliability',
      'Scaling {topic} with {system}',
      'An Honest Look at {Topic}',
    ],
    sentences: [
      'After adopting {system}, {metric} improved steadily over two quarters.',
      'The incident review traced the outage to {problem}.',
      'Service level objectives gave product and engineering a shared language for reliability trade-offs.',
      'Every service now drains in-flight work on SIGTERM before it exits, so deploys no longer cause errors.',
      'Structured logs with consistent field names made it possible to answer questions we had not thought to ask.',
      'Pages per engineer dropped by half once noisy alerts were deleted rather than silenced.',
      'Runbooks are tested during game days, and anything that cannot be automated is flagged.',
    ],
  },
  product: {
    topics: [
      'onboarding flows',
      'pricing pages',
      'feature flags',
      'user research',
      'roadmap planning',
      'developer experience',
      'accessibility',
      'notification digests',
      'search relevance',
      'self-serve analytics',
    ],
    systems: [
      'the mobile app',
      'the admin console',
      'the public API',
      'the command-line tool',
      'the web dashboard',
    ],
    metrics: [
      'activation rate',
      'weekly active users',
      'time to first value',
      'support ticket volume',
      'net promoter score',
    ],
    problems: [
      'a signup form that asked for too much too early',
      'settings hidden three menus deep',
      'email notifications that users could not tune',
      'documentation that lagged behind the product',
      'features built for one large customer',
    ],
    practices: [
      'talking to five customers before writing a spec',
      'shipping behind feature flags and measuring before announcing',
      'letting users choose a daily or weekly digest',
      'writing the documentation before the launch post',
      'treating error messages as part of the interface',
    ],
    titles: [
      'Rethinking {Topic} for {company}',
      'What Users Told Us About {Topic}',
      '{Topic}: A Product Retrospective',
      'Small Changes to {Topic}, Big Results',
    ],
    sentences: [
      'Interviews revealed {problem}, which explained the drop in {metric}.',
      'The redesign of {system} focused on the first ten minutes of use.',
      'Asking for an email address only when it was needed increased completion noticeably.',
      'A weekly digest replaced a stream of individual notifications and unsubscribes fell sharply.',
      'Clear error messages that suggest the next step reduced support tickets more than any new feature.',
      'The roadmap now reserves a fifth of each quarter for fixing what users complain about most.',
    ],
  },
};

const GENERIC_TITLES = [
  'Notes on {Topic}',
  '{Topic}: A Practical Introduction',
  'Why {Topic} Matters More Than You Think',
  'How We Improved {Metric} Through {Topic}',
  'Five Mistakes We Made with {Topic}',
  'Rethinking {Topic} in {year}',
];

const GENERIC_SENTENCES = [
  'In {year}, {team} began a review of {topic} after a string of small but painful incidents.',
  'The first step was simply measuring {metric}, which nobody had tracked consistently.',
  'The biggest improvement came from {practice}.',
  'We also started {practice}, which took a few weeks to become habit.',
  'Looking back, {problem} should have been caught much earlier.',
  'The change was not free: it took {team} about {weeks} weeks and required several rounds of review.',
  'Within {months} months, {metric} had improved by roughly {percent}%.',
  'At {company}, the same approach worked with only minor adjustments.',
  'None of this is novel, but writing it down helped new team members get up to speed quickly.',
  'The open question is how well this scales once the number of services doubles again.',
  "{Topic} is rarely anyone's full-time job, which is exactly why it tends to degrade.",
  'We kept a short decision log so that future readers can see why each trade-off was made.',
];

/** First sentences: each names the document's topic, so the subject is clear and searchable. */
const INTROS = [
  'This article looks at {topic} from the point of view of {team}.',
  'For most of the past year, our planning meetings kept returning to {topic}.',
  '{Topic} sounds like a solved problem until you have to do it yourself.',
  'This is a write-up of how {team} approached {topic}, including the parts that did not work.',
  'We get asked about {topic} often enough that it deserves a proper write-up.',
  'Here is what we learned about {topic} after running it in production for a while.',
];

const CLOSINGS = [
  'The lesson we keep relearning is that boring, well-understood tools beat clever ones.',
  'We will revisit these numbers in six months and publish what changed.',
  'If you are starting out, begin with measurement; everything else follows from it.',
  'Feedback from readers is welcome, especially from teams that chose differently.',
  'The remaining work is tracked openly and anyone is welcome to pick it up.',
];

/** Documents about MCP and MCP-lite, so the spec's example query has real answers. */
const MCP_DOCUMENTS: Array<{ title: string; body: string[] }> = [
  {
    title: 'MCP Protocol Overview',
    body: [
      'The Model Context Protocol enables language model applications to discover and call tools, read resources and use prompts through one consistent interface.',
      'The MCP specification defines JSON-RPC 2.0 messages for tool discovery (tools/list) and tool invocation (tools/call), plus transports such as stdio and Streamable HTTP.',
      'Each tool carries a name, a human-readable description and an input schema written in JSON Schema, which the model reads when deciding what to call.',
    ],
  },
  {
    title: 'Reading the Model Context Protocol Specification',
    body: [
      'This walkthrough of the MCP specification follows a single tool call from the initialize handshake to the final result.',
      'The specification separates protocol errors, reported as JSON-RPC errors, from tool failures, reported inside a successful result with isError set.',
      'Understanding that split early saves a lot of confusion when building both servers and clients for the Model Context Protocol.',
    ],
  },
  {
    title: 'MCP-lite: A Stateless Subset of the Model Context Protocol',
    body: [
      'MCP-lite keeps the core ideas of the Model Context Protocol, tool discovery and tool invocation, and drops session state so that any replica can answer any request.',
      'The MCP-lite specification adds an explicit response type to every result: answer, promise, elicitation, failure or request-for-more-resource.',
      'Because the semantics are transport independent, the same tools can be served over HTTP with JSON-RPC payloads or over gRPC with Protocol Buffers.',
    ],
  },
  {
    title: 'Promises and Long-Running Tools in the MCP Specification',
    body: [
      'Some tools take minutes, not milliseconds. The MCP-lite specification handles them with promises: the server answers at once with an opaque promise token and an estimated completion time.',
      'The client later calls the redeem system tool with the token and receives either the final result or a fresh promise.',
      'Tokens must be unguessable, unique within the server namespace and time-bounded, which rules out sequential identifiers.',
    ],
  },
  {
    title: 'Streaming Tool Results with SSE in MCP',
    body: [
      'Streaming lets a tool deliver partial results while it works. In the MCP-lite HTTP binding a client asks for it with Accept: text/event-stream.',
      'The server sends message events carrying partial content, then a done event with the final _meta section, heartbeat events while idle and an error event if something goes wrong.',
      'The Model Context Protocol itself reports progress through notifications, so a bridge between the two maps partials onto progress messages.',
    ],
  },
  {
    title: 'Elicitation in the Model Context Protocol',
    body: [
      'Elicitation lets a tool ask the user for missing information instead of guessing, for example an email address or a preferred frequency.',
      'The MCP specification describes elicitation requests with a message and a restricted JSON Schema for the answers.',
      'A stateless server can still support elicitation by signing the state it needs and sending it to the client, which returns it with the answers.',
    ],
  },
  {
    title: 'Comparing MCP Transports: stdio, Streamable HTTP and gRPC',
    body: [
      'The Model Context Protocol started with stdio for local servers and added Streamable HTTP for remote ones.',
      'MCP-lite adds a gRPC binding with GetTools, CallTool and CallToolStream, keeping the same semantics as the HTTP binding.',
      'Choosing a transport is mostly about the environment: stdio for desktop tools, HTTP for web infrastructure, gRPC for service-to-service calls.',
    ],
  },
  {
    title: 'Versioning and Compatibility in the MCP Specification',
    body: [
      'The MCP specification is versioned by date, and clients and servers negotiate a protocol revision during initialization.',
      'MCP-lite avoids negotiation by versioning its base URL, so an HTTP client knows what it speaks from the path alone.',
      'Both approaches aim at the same goal: letting the protocol evolve without breaking existing tools.',
    ],
  },
  {
    title: 'Error Handling Patterns for MCP Servers',
    body: [
      'Good error messages are part of the interface. When a model calls a tool that does not exist, an MCP-lite server answers with error code -32601 and lists the available tools with a suggestion.',
      'Invalid arguments are reported as -32602 with the offending field and what was expected, which lets the model correct itself on the next attempt.',
      'The Model Context Protocol specification leaves much of this to implementations, so consistent conventions matter.',
    ],
  },
];

function fill(template: string, slots: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => {
    const lower = key.charAt(0).toLowerCase() + key.slice(1);
    const value = slots[lower];
    if (value === undefined) throw new Error(`Unknown slot {${key}} in "${template}"`);
    // A capitalised slot ({Topic}) starts a sentence or a title word, so its value is capitalised too.
    return key === lower ? value : capitalise(value);
  });
}

function slotsFor(vocab: Vocabulary, topic: string, year: number): Record<string, string> {
  return {
    topic,
    system: pick(vocab.systems),
    metric: pick(vocab.metrics),
    problem: pick(vocab.problems),
    practice: pick(vocab.practices),
    team: pick(TEAMS),
    company: pick(COMPANIES),
    year: String(year),
    quarter: String(int(1, 4)),
    percent: String(int(3, 38)),
    change: pick(['increased', 'grew', 'rose', 'declined', 'fell']),
    weeks: String(int(2, 12)),
    months: String(int(2, 9)),
  };
}

function paragraph(
  vocab: Vocabulary,
  slots: Record<string, string>,
  sentences: number,
  used: Set<string>,
  intro: boolean,
): string {
  const out: string[] = intro ? [capitalise(fill(pick(INTROS), slots))] : [];
  while (out.length < sentences) {
    const pool = rand() < 0.6 ? vocab.sentences : GENERIC_SENTENCES;
    const template = pick(pool);
    if (used.has(template)) continue;
    used.add(template);
    // Fresh values per sentence, except the topic, which ties the document together.
    const s = fill(template, { ...slotsFor(vocab, slots.topic!, Number(slots.year)), topic: slots.topic! });
    out.push(capitalise(s));
  }
  return out.join(' ');
}

function isoDate(year: number, dayOfYear: number): string {
  return new Date(Date.UTC(year, 0, dayOfYear)).toISOString().slice(0, 10);
}

/** The whole collection, the same on every call. */
export function generate(): Document[] {
  rand = prng(SEED);
  const names = Object.keys(CATEGORIES);
  const drafts: Array<Omit<Document, 'document_id'>> = [];
  for (const mcp of MCP_DOCUMENTS) {
    const author = pick(AUTHORS.filter((a) => a.beats.includes('protocols'))).name;
    const year = int(2024, 2025);
    drafts.push({
      title: mcp.title,
      category: 'protocols',
      author,
      published: isoDate(year, int(1, year === 2025 ? 170 : 365)),
      body: [mcp.body.join(' '), pick(CLOSINGS)].join('\n\n'),
    });
  }
  const titles = new Set(drafts.map((d) => d.title));
  while (drafts.length < COUNT) {
    const category = names[drafts.length % names.length]!;
    const vocab = CATEGORIES[category]!;
    const topic = pick(vocab.topics);
    const year = int(2019, 2025);
    const slots = slotsFor(vocab, topic, year);
    const title = titleCase(fill(pick(rand() < 0.6 ? vocab.titles : GENERIC_TITLES), slots));
    if (titles.has(title)) continue;
    titles.add(title);
    const beatAuthors = AUTHORS.filter((a) => a.beats.includes(category));
    const author = (rand() < 0.85 ? pick(beatAuthors) : pick(AUTHORS)).name;
    // One set per document, so no sentence appears twice in the same text.
    const used = new Set<string>();
    const paragraphs = Array.from({ length: int(1, 3) }, (_, i) =>
      paragraph(vocab, slots, int(3, 5), used, i === 0),
    );
    if (rand() < 0.5) paragraphs.push(pick(CLOSINGS));
    drafts.push({
      title,
      category,
      author,
      published: isoDate(year, int(1, year === 2025 ? 170 : 365)),
      body: paragraphs.join('\n\n'),
    });
  }
  // Chronological ids read naturally ("doc_001" is the oldest).
  drafts.sort((a, b) => a.published.localeCompare(b.published) || a.title.localeCompare(b.title));
  return drafts.map((d, i) => ({ document_id: `doc_${String(i + 1).padStart(3, '0')}`, ...d }));
}

/** The file's text: pretty-printed JSON, so that diffs of the committed output stay readable. */
export function serialise(documents: readonly Document[]): string {
  return `${JSON.stringify(documents, null, 2)}\n`;
}

// Writes only when run as a script; importing it (as the data-set test does) has no side effects.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const documents = generate();
  const out = fileURLToPath(new URL('./documents.json', import.meta.url));
  writeFileSync(out, serialise(documents));
  console.log(`wrote ${documents.length} documents to ${out}`);
}
