/**
 * mcplite: define tools once, serve them statelessly over MCP-lite HTTP (and, as bindings land, gRPC, MCP and
 * Webtools).
 */
export { toFetchHandler } from './adapters/fetch.js';
export { listenNode, type NodeListening, toNodeListener } from './adapters/node.js';
export { composeHandlers } from './bindings/common/compose.js';
export { type HostGuardOptions, withHostGuard } from './bindings/common/host-guard.js';
export { createHttpBinding, type HttpBindingOptions } from './bindings/http/index.js';
export type { McpNativeContext, McpNativePrompt, McpNativeTool } from './bindings/mcp/engine.js';
export { createMcpBinding, type McpBindingOptions, type McpHandler } from './bindings/mcp/index.js';
export { type StdioOptions, type StdioServer, serveStdio } from './bindings/mcp/stdio.js';
export { McpProtocolError } from './bindings/mcp/wire.js';
export { type Authenticate, bearerAuth, type Credentials, type Principal } from './core/auth.js';
export type { Listing } from './core/catalog.js';
export { type ContentBlock, type ResourceContents, type RichContent, richContent } from './core/content.js';
export type { ElicitationReply } from './core/elicitations.js';
export { type ErrorCode, McpLiteError } from './core/errors.js';
export type { NeutralHandler, NeutralRequest, NeutralResponse } from './core/http.js';
export type { Logger } from './core/logger.js';
export { type LogNotice, logToClient, type ProgressNotice, reportProgress } from './core/notices.js';
export {
  answer,
  type CallResult,
  type ElicitInput,
  elicit,
  failure,
  needMoreResource,
  type Outcome,
  type ResponseMeta,
  type ResponseType,
} from './core/outcomes.js';
export type { PromiseRecord, PromiseStore, Settlement } from './core/promises/store.js';
export type { PromptArgument, PromptDefinition, PromptMessage, PromptValue } from './core/prompts.js';
export type {
  Completer,
  ResourceContext,
  ResourceDefinition,
  ResourceReadValue,
  ResourceTemplateDefinition,
} from './core/resources.js';
export type { JsonSchema, SchemaInput } from './core/schema.js';
export { type CallRequest, ToolServer, type ToolServerOptions } from './core/server.js';
export { defineTool, type ToolContext, type ToolDefinition, type ToolHandler } from './core/tool.js';
export { createServer, type ServerOptions } from './create-server.js';
export { type RunningServer, type ServeOptions, serve } from './serve.js';
export { MemoryPromiseStore, type MemoryPromiseStoreOptions } from './stores/memory.js';
