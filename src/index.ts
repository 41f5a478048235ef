/**
 * mcplite: define tools once, serve them over MCP-lite HTTP, MCP-lite gRPC and full MCP (Streamable HTTP, stdio).
 * How it is built: docs/architecture.md.
 */
export { toFetchHandler } from './adapters/fetch.js';
export { listenNode, type NodeListening, toNodeListener, type UpgradeHandler } from './adapters/node.js';
export { composeHandlers } from './bindings/common/compose.js';
export { type HostGuardOptions, withHostGuard } from './bindings/common/host-guard.js';
export { createHttpBinding, type HttpBindingOptions } from './bindings/http/index.js';
export {
  type McpLiteStdioOptions,
  type McpLiteStdioServer,
  serveMcpLiteStdio,
} from './bindings/http/stdio.js';
export { createMcpBinding, type McpBindingOptions, type McpHandler } from './bindings/mcp/index.js';
export type { McpNativeContext, McpNativePrompt, McpNativeTool } from './bindings/mcp/native.js';
export { type StdioOptions, type StdioServer, serveStdio } from './bindings/mcp/stdio.js';
export { createWebtoolsBinding, type WebtoolsBindingOptions } from './bindings/webtools/index.js';
export { createMcpLiteWsBinding, type McpLiteWsOptions, type WsEndpoint } from './bindings/ws/index.js';
export { type Authenticate, bearerAuth, type Credentials, type Principal } from './core/auth.js';
export type { CallRequest } from './core/call-request.js';
export { callerKey } from './core/caller.js';
export type { Listing } from './core/catalog.js';
export { type ContentBlock, type ResourceContents, type RichContent, richContent } from './core/content.js';
export type { ElicitationReply } from './core/elicitations.js';
export { ERROR_CODES, type ErrorCode, McpLiteError } from './core/errors.js';
export type { NeutralHandler, NeutralRequest, NeutralResponse } from './core/http.js';
export { consoleLogger, type LogLevelName, stderrLogger } from './core/log-output.js';
export { type ConsoleLike, type Logger, type LoggerLike, silentLogger } from './core/logger.js';
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
export type { RateLimitOptions, RateLimitStore } from './core/rate-limit.js';
export type {
  Completer,
  ResourceContext,
  ResourceDefinition,
  ResourceReadValue,
  ResourceTemplateDefinition,
} from './core/resources.js';
export type { JsonSchema, SchemaInput } from './core/schema.js';
export { ToolServer } from './core/server.js';
export type { ToolServerOptions } from './core/server-options.js';
export type {
  ResponseWaiter,
  SessionDialect,
  SessionEvent,
  SessionMessage,
  SessionRecord,
  SessionStateStore,
  SessionStoreOptions,
  TaskResumeData,
} from './core/session-state.js';
export { defineTool, type ToolContext, type ToolDefinition, type ToolHandler } from './core/tool.js';
export type { WebtoolAction, WebtoolDefinition, WebtoolVersionDefinition } from './core/webtools.js';
export { createServer, type ServerOptions } from './create-server.js';
export { ListenError, type RunningServer, type ServeOptions, serve } from './serve.js';
export { MemoryPromiseStore, type MemoryPromiseStoreOptions } from './stores/memory.js';
export { MemoryRateLimitStore, type MemoryRateLimitStoreOptions } from './stores/memory-rate-limit.js';
export { MemorySessionStore } from './stores/memory-sessions.js';
