/**
 * `mcplite/gateway`: many servers behind one (docs/gateway.md). `mount` composes servers in one process,
 * `proxyTools` gives a remote server's tools, `openApiTools` an HTTP API's; `Gateway` keeps a server's catalog in
 * line with its upstreams (what `mcplite proxy --config` runs), `parseGatewayConfig` reads the config format.
 */
export { gatewayCatalog } from './catalog.js';
export {
  type EntryBounds,
  type EntryOAuth,
  type GatewayEntry,
  type OpenApiEntry,
  parseGatewayConfig,
  type RemoteEntry,
  type StdioEntry,
  type TargetEntry,
} from './config.js';
export { Gateway, type GatewayServeOptions } from './gateway.js';
export { type GatewayOptions, gatewayTools } from './gateway-tools.js';
export { type MountedServer, type MountOptions, mount } from './mount.js';
export { type OpenApiOptions, openApiTools } from './openapi.js';
export {
  openUpstream,
  type ProxiedTools,
  type ProxyToolsOptions,
  proxyTools,
  type UpstreamSource,
} from './proxy-tools.js';
export type { ToolSource } from './source.js';
export type { ToolTransforms } from './transforms.js';
export {
  GatewayUpstream,
  type UpstreamOptions,
  type UpstreamState,
  type UpstreamStatus,
} from './upstream.js';
