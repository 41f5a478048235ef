/**
 * The heavy parts (Redis and BullMQ, gRPC, Prometheus metrics) are optional peer dependencies (package.json
 * `peerDependenciesMeta`), so that a server that speaks only MCP installs a small tree. They are loaded with
 * `import()` at first use; this turns the loader's "cannot find package" into one line saying what to install.
 */

/** Each optional feature and the packages it needs, as `npm install` takes them. */
export const OPTIONAL_PEERS = {
  redis: ['ioredis', 'bullmq'],
  grpc: [
    '@grpc/grpc-js',
    '@grpc/proto-loader',
    '@grpc/reflection',
    'grpc-health-check',
    '@bufbuild/protobuf',
  ],
  metrics: ['prom-client'],
  otel: ['@opentelemetry/api', '@opentelemetry/sdk-node'],
} as const satisfies Record<string, readonly string[]>;

/** A feature that needs optional peer dependencies. */
export type OptionalFeature = keyof typeof OPTIONAL_PEERS;

/** What each feature is called in the message (the CLI flag that turns it on). */
const FEATURE_LABEL: Record<OptionalFeature, string> = {
  redis: 'Redis state (--redis, mcplite/redis)',
  grpc: 'gRPC (--grpc, mcplite/grpc)',
  metrics: 'metrics (--metrics)',
  otel: 'OpenTelemetry export (--otel, OTEL_EXPORTER_OTLP_ENDPOINT)',
};

/** A feature was used whose optional peer dependencies are not installed. */
export class MissingPeerError extends Error {
  /** The feature that was asked for. */
  readonly feature: OptionalFeature;
  /** The packages to install for it. */
  readonly packages: readonly string[];

  constructor(feature: OptionalFeature, cause: unknown) {
    const packages = OPTIONAL_PEERS[feature];
    super(
      `${FEATURE_LABEL[feature]} needs optional packages that are not installed: npm install ${packages.join(' ')}`,
      { cause },
    );
    this.name = 'MissingPeerError';
    this.feature = feature;
    this.packages = packages;
  }
}

/**
 * Runs `load` (an `import()` of the module built on the feature's packages) and, when it fails because one of
 * those packages is missing, throws a `MissingPeerError` naming what to install. Other failures pass unchanged.
 */
export async function loadOptional<T>(feature: OptionalFeature, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (isMissingPackage(err, OPTIONAL_PEERS[feature])) throw new MissingPeerError(feature, err);
    throw err;
  }
}

/** Whether `err` is the module loader's "cannot find" for one of `packages` (not for a file of ours). */
function isMissingPackage(err: unknown, packages: readonly string[]): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  const message = String((err as Error).message);
  return packages.some((name) => message.includes(`'${name}'`) || message.includes(`"${name}"`));
}
