/** Category vocabularies for building software: protocols, databases and machine learning. */
import type { Vocabulary } from './vocabulary.js';

/** The protocols category's words and templates. */
export const PROTOCOLS: Vocabulary = {
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
};

/** The databases category's words and templates. */
export const DATABASES: Vocabulary = {
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
};

/** The machine-learning category's words and templates. */
export const MACHINE_LEARNING: Vocabulary = {
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
};
