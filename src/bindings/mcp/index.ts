/**
 * The MCP binding (`mcplite/mcp`): `createMcpBinding` (Streamable HTTP, a neutral handler), the native tool and
 * prompt types, and the revisions served. MCP's other transports are served from `mcplite/node` (stdio, WebSocket)
 * and `serve` (legacy HTTP+SSE). How it is built: docs/architecture.md.
 */
export type { McpNativeContext, McpNativePrompt, McpNativeTool } from './native.js';
export { STATELESS_REVISION, SUPPORTED_REVISIONS } from './revisions.js';
export { createMcpBinding, type McpBindingOptions, type McpHandler } from './streamable-http/index.js';
