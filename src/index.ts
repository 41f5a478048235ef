/**
 * mcplite: define tools once, serve them over MCP-lite HTTP, MCP-lite gRPC and full MCP (Streamable HTTP, stdio).
 * How it is built: docs/architecture.md. This root entry is the portable core: it reaches no `node:*` module, no
 * `ws` and no gRPC (test/package/root-entry-imports.test.ts), so it loads on Workers, Deno and Bun. Each binding's factory
 * has its subpath (`mcplite/http`, `mcplite/mcp`, `mcplite/webtools`, `mcplite/fetch`), serving on Node is
 * `mcplite/node`, and every symbol has exactly one import path.
 */

export { composeHandlers } from './bindings/common/compose.js';
export type { ReadinessCheck } from './bindings/common/health.js';
export type { HostGuardOptions } from './bindings/common/host-guard.js';
export { createProtectedResourceHandler } from './bindings/common/protected-resource.js';
export {
  APP_MIME_TYPE,
  APPS_EXTENSION,
  type ToolAudience,
  type ToolView,
  type ViewCsp,
  type ViewData,
  type ViewHtml,
  type ViewPermissions,
} from './core/apps/ui.js';
export {
  type Authenticate,
  anyOf,
  bearerAuth,
  type Credentials,
  type Principal,
  type RequestTarget,
} from './core/auth.js';
export type { CallRequest } from './core/call-request.js';
export { callerKey } from './core/caller.js';
export type { Listing } from './core/catalog.js';
export { type ContentBlock, type ResourceContents, type RichContent, richContent } from './core/content.js';
export type {
  CardIcon,
  CardRemote,
  CardRepository,
  ServerCardOptions,
} from './core/discovery/server-card.js';
export type { ElicitationReply } from './core/elicitations.js';
export { ERROR_CODES, type ErrorCode, McpLiteError } from './core/errors.js';
export type { NeutralHandler, NeutralRequest, NeutralResponse } from './core/http.js';
export type { InferInput, InferOutput } from './core/infer.js';
export { consoleLogger, type LogLevelName, stderrLogger } from './core/log-output.js';
export { type ConsoleLike, type Logger, type LoggerLike, silentLogger } from './core/logger.js';
export {
  type CacheResultsOptions,
  cacheResults,
  type LogCallsOptions,
  logCalls,
  type TimeoutLimit,
  timeout,
  visibleTools,
} from './core/middleware/index.js';
export { type LogNotice, logToClient, type ProgressNotice, reportProgress } from './core/notices.js';
export type { DpopMode, DpopNonceSettings, DpopSettings } from './core/oauth/dpop-proof.js';
export type { ProtectedResource } from './core/oauth/protected-resource.js';
export {
  type IntrospectionSettings,
  type OAuthResourceServerOptions,
  oauthResourceServer,
} from './core/oauth/resource-server.js';
export type {
  BindingName,
  Middleware,
  Next,
  Operation,
  OperationCaller,
  OperationMethod,
} from './core/operation.js';
export {
  answer,
  type CallResult,
  type ElicitInput,
  elicit,
  failure,
  needMoreResource,
  type Outcome,
  RESPONSE_TYPES,
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
export type { SkillDefinition, SkillEntry, SkillFile } from './core/skills/skills.js';
export {
  defineTool,
  type ElicitationAnswers,
  type ToolAuth,
  type ToolContext,
  type ToolDefinition,
  type ToolHandler,
  type TypedTool,
} from './core/tool.js';
export { type ToolSearch, type ToolSearchOptions, toolSearch } from './core/tool-search/tool-search.js';
export type { WebtoolAction, WebtoolDefinition, WebtoolVersionDefinition } from './core/webtools.js';
export {
  type AssembledHandler,
  createHandler,
  type HandlerOptions,
  withHostGuard,
} from './create-handler.js';
export { createServer, type ServerOptions } from './create-server.js';
export { MemoryPromiseStore, type MemoryPromiseStoreOptions } from './stores/memory.js';
export { MemoryRateLimitStore, type MemoryRateLimitStoreOptions } from './stores/memory-rate-limit.js';
export { MemorySessionStore } from './stores/memory-sessions.js';
