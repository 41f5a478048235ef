/**
 * `mcplite/client`: one client for every MCP-lite binding and for any MCP server (Streamable HTTP or stdio).
 * See docs/client.md.
 */

export { McpLiteError } from '../core/errors.js';
export type { AuthChallenge } from './auth-challenge.js';
export { type Client, connect } from './client.js';
export type { CatalogRequestOptions } from './client-api.js';
export { bindingOf, splitCommand } from './detect.js';
export { type ClientLimits, DEFAULT_LIMITS } from './limits.js';
export { checkLock, createLock, isLockfile, type LockChange, lockMismatch, readLockfile } from './lock.js';
export {
  type EnterpriseIdp,
  memoryOAuthStore,
  type OAuthOptions,
  type OAuthRecord,
  type OAuthSecretSource,
  type OAuthStore,
} from './oauth.js';
export { type ListedSkill, listSkills, readSkill } from './skills.js';
export type { CallArgs, ToolOutput, ToolSet, TypedOutcome } from './typed.js';
export type {
  AnswerOutcome,
  Binding,
  CallOptions,
  CallOutcome,
  CancelResult,
  ConnectOptions,
  ElicitationOutcome,
  ElicitationRequest,
  FailureOutcome,
  LockedTool,
  Lockfile,
  OutcomeMeta,
  PartialEvent,
  PromiseOutcome,
  PromiseProgress,
  ResourceRequestOutcome,
  ToolInfo,
} from './types.js';
export type { ToolViewInfo, ViewOptions } from './views.js';
