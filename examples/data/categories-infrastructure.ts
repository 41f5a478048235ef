/** Category vocabularies for running software: security, networking and operations. */
import type { Vocabulary } from './vocabulary.js';

/** The security category's words and templates. */
export const SECURITY: Vocabulary = {
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
};

/** The networking category's words and templates. */
export const NETWORKING: Vocabulary = {
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
};

/** The operations category's words and templates. */
export const OPERATIONS: Vocabulary = {
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
};
