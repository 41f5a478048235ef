/**
 * `mcplite/node`: serving on Node (sockets, stdio, WebSocket). Kept apart from the root entry so that `mcplite`
 * itself reaches no `node:*` module, no `ws` and no gRPC, and loads on Workers, Deno and Bun (docs/architecture.md).
 */
export {
  type ListenOptions,
  listenNode,
  type NodeListenerOptions,
  type NodeListening,
  toNodeListener,
  type UpgradeHandler,
} from './adapters/node.js';
export {
  type McpStdioOptions,
  type McpStdioServer,
  type StdioOptions,
  type StdioServer,
  serveMcpStdio,
  serveStdio,
} from './bindings/mcp/stdio/index.js';
export { createMcpWsBinding, type McpWsOptions } from './bindings/mcp/ws/index.js';
export {
  type McpLiteStdioOptions,
  type McpLiteStdioServer,
  serveMcpLiteStdio,
} from './bindings/mcp-lite/stdio/index.js';
export {
  createMcpLiteWsBinding,
  type McpLiteWsOptions,
  type WsEndpoint,
} from './bindings/mcp-lite/ws/index.js';
export { type LoadSkillsOptions, loadSkills, loadSkillsSync } from './load-skills.js';
export { ListenError, type RunningServer, type ServeOptions, serve } from './serve.js';
