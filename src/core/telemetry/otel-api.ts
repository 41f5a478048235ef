import type * as OtelApi from '@opentelemetry/api';
import { SCOPE } from './conventions.js';

/** The OpenTelemetry API module, as this library uses it (an optional peer dependency). */
export type Otel = typeof OtelApi;

const PACKAGE = '@opentelemetry/api';

let api: Otel | undefined;
let noopTracerProvider: unknown;
let loading: Promise<Otel | undefined> | undefined;
let triedNow = false;

function adopt(module: Otel): Otel {
  if (api === undefined) {
    // The API's own no-op provider, which `getDelegate` answers until an SDK registers a real one.
    noopTracerProvider = new module.ProxyTracerProvider().getDelegate();
    api = module;
  }
  return api;
}

/**
 * Loads `@opentelemetry/api` once, if it is installed. It is an optional peer: the library must load without
 * it, so it is never imported statically. Resolves to undefined when the package is absent.
 */
export function loadOtel(): Promise<Otel | undefined> {
  loading ??= import(PACKAGE).then(
    (module: Otel) => adopt(module),
    () => otelNow(),
  );
  return loading;
}

/**
 * The API now, loaded synchronously where the runtime can (`process.getBuiltinModule`: Node 20.16+, Bun, Deno):
 * a server decides when it is made whether to install tracing. Elsewhere it is undefined until `loadOtel` has
 * resolved. Any copy of the API works: the SDK's registrations live on a global every copy reads.
 */
export function otelNow(): Otel | undefined {
  if (api !== undefined || triedNow) return api;
  triedNow = true;
  const getBuiltin = (
    globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
  ).process?.getBuiltinModule?.bind(globalThis.process);
  if (getBuiltin === undefined) return undefined;
  try {
    const { createRequire } = getBuiltin('node:module') as {
      createRequire: (from: string) => (id: string) => unknown;
    };
    return adopt(createRequire(import.meta.url)(PACKAGE) as Otel);
  } catch {
    return undefined;
  }
}

/** The tracer provider the SDK registered (the global proxy's delegate), or undefined while none is. */
function registeredProvider(module: Otel): OtelApi.TracerProvider | undefined {
  const provider = module.trace.getTracerProvider() as OtelApi.TracerProvider & {
    getDelegate?: () => OtelApi.TracerProvider;
  };
  const delegate = provider.getDelegate ? provider.getDelegate() : provider;
  return delegate === noopTracerProvider ? undefined : delegate;
}

/** Where every copy of the API 1.x keeps what was registered with it (an SDK's tracer and meter providers). */
const REGISTRATIONS = Symbol.for('opentelemetry.js.api.1');

/**
 * Whether anything has been registered with the API, by any copy of it. Until then no SDK runs, and loading the
 * API (about fifty modules, a noticeable part of a server's cold start) would only find that out.
 */
export function otelRegistered(): boolean {
  return (globalThis as Record<symbol, unknown>)[REGISTRATIONS] !== undefined;
}

/**
 * The API when an SDK registered a tracer provider, else undefined: the check each operation makes (a few
 * property reads), so that tracing costs nothing while no SDK is registered. The API is loaded here once
 * something has been registered, if no server loaded it before.
 */
export function activeTracing(): Otel | undefined {
  const module = api ?? (otelRegistered() ? otelNow() : undefined);
  return module !== undefined && registeredProvider(module) !== undefined ? module : undefined;
}

let tracerOf: { provider: OtelApi.TracerProvider; tracer: OtelApi.Tracer } | undefined;

/**
 * The `mcplite` tracer of the provider registered now, or undefined while none is. Asked of the provider once
 * per provider rather than once per operation (the API's `getTracer` walks the proxy and the SDK's tracer map);
 * a provider registered later (tests swap them) gets its own.
 */
export function activeTracer(): OtelApi.Tracer | undefined {
  if (api === undefined) return undefined;
  const provider = registeredProvider(api);
  if (provider === undefined) return undefined;
  if (tracerOf?.provider !== provider) tracerOf = { provider, tracer: provider.getTracer(SCOPE) };
  return tracerOf.tracer;
}

/** The API once loaded (undefined before, or when the package is absent). */
export function otelApi(): Otel | undefined {
  return api;
}
