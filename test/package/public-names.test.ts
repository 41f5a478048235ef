/**
 * The public API's names (docs/architecture.md, "The shape of a binding"): across every entry that package.json's
 * `exports` names, one name means one thing (two entries may export the same symbol, never two symbols under one
 * name: a user who imports `Outcome` from `mcplite` and from `mcplite/client` must not get two different types),
 * every binding's factory is reachable, and the internals (wire tables, `normaliseBase`, `toStruct`) are not.
 * Read by the TypeScript compiler from the sources the entries are built from, aliases resolved to their
 * declarations.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const exportsMap = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, { import: string } | string>;
  }
).exports;

/** Each code entry (`mcplite`, `mcplite/node`, …) and the source file it is built from. */
const entries = Object.entries(exportsMap)
  .filter(([, target]) => typeof target !== 'string')
  .map(([subpath, target]) => ({
    name: subpath === '.' ? 'mcplite' : `mcplite/${subpath.slice(2)}`,
    file: join(
      ROOT,
      (target as { import: string }).import.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'),
    ),
  }));

/** Name -> where its declaration stands -> the entries exporting it under that name. */
let meanings: Map<string, Map<string, string[]>>;

beforeAll(() => {
  const program = ts.createProgram(
    entries.map((e) => e.file),
    {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
    },
  );
  const checker = program.getTypeChecker();
  meanings = new Map();
  for (const entry of entries) {
    const source = program.getSourceFile(entry.file);
    if (!source) throw new Error(`${entry.name}: ${entry.file} not found`);
    const moduleSymbol = checker.getSymbolAtLocation(source);
    if (!moduleSymbol) continue;
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const declaration = target.declarations?.[0];
      const where = declaration
        ? `${relative(ROOT, declaration.getSourceFile().fileName)}#${target.name}`
        : `?#${target.name}`;
      const byPlace = meanings.get(exported.name) ?? new Map<string, string[]>();
      byPlace.set(where, [...(byPlace.get(where) ?? []), entry.name]);
      meanings.set(exported.name, byPlace);
    }
  }
}, 60_000);

describe('public names', () => {
  it('gives every exported name one meaning across all entries', () => {
    const clashes = [...meanings]
      .filter(([, byPlace]) => byPlace.size > 1)
      .map(
        ([name, byPlace]) =>
          `${name}: ${[...byPlace].map(([where, from]) => `${where} (${from.join(', ')})`).join(' vs ')}`,
      );
    expect(clashes).toEqual([]);
  });

  it('reaches every binding factory from a public entry', () => {
    for (const factory of [
      'createMcpLiteHttpBinding',
      'createHttpBinding',
      'createMcpBinding',
      'createLegacySseBinding',
      'createMcpWsBinding',
      'createMcpLiteWsBinding',
      'serveMcpStdio',
      'serveStdio',
      'serveMcpLiteStdio',
      'createGrpcBinding',
      'createWebtoolsBinding',
      'toFetchHandler',
    ]) {
      expect(meanings.has(factory), factory).toBe(true);
    }
  });

  it('keeps the internals out (wire tables, normaliseBase, toStruct)', () => {
    const internal = [...meanings.keys()].filter((name) =>
      /^(HTTP_STATUS|JSON_RPC_CODE|GRPC_STATUS|WEBTOOLS_ERRORS|MESSAGE_HTTP_STATUS|normaliseBase|toStruct|fromStruct|toRpcError|toMcpError)$/.test(
        name,
      ),
    );
    expect(internal).toEqual([]);
  });

  // What an entry offers is chosen, not whatever its modules happen to export: a name added or dropped here is a
  // change of the public API (and of the changelog).
  const allowed: Record<string, string[]> = {
    mcplite: [
      'APPS_EXTENSION',
      'APP_MIME_TYPE',
      'AssembledHandler',
      'Authenticate',
      'BindingName',
      'CacheResultsOptions',
      'CallRequest',
      'CallResult',
      'CardIcon',
      'CardRemote',
      'CardRepository',
      'Completer',
      'ConsoleLike',
      'ContentBlock',
      'Credentials',
      'DpopMode',
      'DpopNonceSettings',
      'DpopSettings',
      'ERROR_CODES',
      'ElicitInput',
      'ElicitationAnswers',
      'ElicitationReply',
      'ErrorCode',
      'HandlerOptions',
      'HostGuardOptions',
      'InferInput',
      'InferOutput',
      'IntrospectionSettings',
      'JsonSchema',
      'Listing',
      'LogCallsOptions',
      'LogLevelName',
      'LogNotice',
      'Logger',
      'LoggerLike',
      'McpLiteError',
      'MemoryPromiseStore',
      'MemoryPromiseStoreOptions',
      'MemoryRateLimitStore',
      'MemoryRateLimitStoreOptions',
      'MemorySessionStore',
      'Middleware',
      'NeutralHandler',
      'NeutralRequest',
      'NeutralResponse',
      'Next',
      'OAuthResourceServerOptions',
      'Operation',
      'OperationCaller',
      'OperationMethod',
      'Outcome',
      'Principal',
      'ProgressNotice',
      'PromiseRecord',
      'PromiseStore',
      'PromptArgument',
      'PromptDefinition',
      'PromptMessage',
      'PromptValue',
      'ProtectedResource',
      'RESPONSE_TYPES',
      'RateLimitOptions',
      'RateLimitStore',
      'ReadinessCheck',
      'RequestTarget',
      'ResourceContents',
      'ResourceContext',
      'ResourceDefinition',
      'ResourceReadValue',
      'ResourceTemplateDefinition',
      'ResponseMeta',
      'ResponseType',
      'ResponseWaiter',
      'RichContent',
      'SchemaInput',
      'ServerCardOptions',
      'ServerOptions',
      'SessionDialect',
      'SessionEvent',
      'SessionMessage',
      'SessionRecord',
      'SessionStateStore',
      'SessionStoreOptions',
      'Settlement',
      'SkillDefinition',
      'SkillEntry',
      'SkillFile',
      'TaskResumeData',
      'TimeoutLimit',
      'ToolAudience',
      'ToolAuth',
      'ToolContext',
      'ToolDefinition',
      'ToolHandler',
      'ToolSearch',
      'ToolSearchOptions',
      'ToolServer',
      'ToolServerOptions',
      'ToolView',
      'TypedTool',
      'ViewCsp',
      'ViewData',
      'ViewHtml',
      'ViewPermissions',
      'WebtoolAction',
      'WebtoolDefinition',
      'WebtoolVersionDefinition',
      'answer',
      'anyOf',
      'bearerAuth',
      'cacheResults',
      'callerKey',
      'composeHandlers',
      'consoleLogger',
      'createHandler',
      'createProtectedResourceHandler',
      'createServer',
      'defineTool',
      'elicit',
      'failure',
      'logCalls',
      'logToClient',
      'needMoreResource',
      'oauthResourceServer',
      'reportProgress',
      'richContent',
      'silentLogger',
      'stderrLogger',
      'timeout',
      'toolSearch',
      'visibleTools',
      'withHostGuard',
    ],
    'mcplite/node': [
      'ListenError',
      'ListenOptions',
      'LoadSkillsOptions',
      'McpLiteStdioOptions',
      'McpLiteStdioServer',
      'McpLiteWsOptions',
      'McpStdioOptions',
      'McpStdioServer',
      'McpWsOptions',
      'NodeListenerOptions',
      'NodeListening',
      'RunningServer',
      'ServeOptions',
      'StdioOptions',
      'StdioServer',
      'UpgradeHandler',
      'WsEndpoint',
      'createMcpLiteWsBinding',
      'createMcpWsBinding',
      'listenNode',
      'loadSkills',
      'loadSkillsSync',
      'serve',
      'serveMcpLiteStdio',
      'serveMcpStdio',
      'serveStdio',
      'toNodeListener',
    ],
    'mcplite/fetch': [
      'FetchExecutionContext',
      'FetchHandler',
      'FetchHandlerOptions',
      'WaitUntil',
      'toFetchHandler',
    ],
    'mcplite/http': [
      'HttpBindingOptions',
      'McpLiteHttpBindingOptions',
      'createHttpBinding',
      'createMcpLiteHttpBinding',
    ],
    'mcplite/grpc': [
      'GrpcBinding',
      'GrpcBindingOptions',
      'GrpcInFlightLimits',
      'GrpcListenOptions',
      'GrpcListening',
      'MCP_SERVICE_NAME',
      'McpGrpcService',
      'McpGrpcServiceOptions',
      'SERVICE_NAME',
      'createGrpcBinding',
      'createMcpGrpcService',
      'defaultMcpProtoPath',
      'defaultProtoPath',
      'listenGrpc',
    ],
    'mcplite/mcp': [
      'LegacySseHandler',
      'LegacySseOptions',
      'McpBindingOptions',
      'McpHandler',
      'McpNativeContext',
      'McpNativePrompt',
      'McpNativeTool',
      'STATELESS_REVISION',
      'SUPPORTED_REVISIONS',
      'createLegacySseBinding',
      'createMcpBinding',
    ],
    'mcplite/webtools': ['WebtoolsBindingOptions', 'createWebtoolsBinding'],
    'mcplite/redis': [
      'BullMqWorkQueue',
      'BullMqWorkQueueOptions',
      'ConnectRedisOptions',
      'RedisElicitationNonceStore',
      'RedisElicitationNonceStoreOptions',
      'RedisPromiseStore',
      'RedisPromiseStoreOptions',
      'RedisRateLimitStore',
      'RedisRateLimitStoreOptions',
      'RedisSessionStore',
      'RedisSessionStoreOptions',
      'connectRedis',
    ],
    'mcplite/client': [
      'AnswerOutcome',
      'AuthChallenge',
      'Binding',
      'CallArgs',
      'CallOptions',
      'CallOutcome',
      'CancelResult',
      'CatalogRequestOptions',
      'Client',
      'ClientLimits',
      'ConnectOptions',
      'DEFAULT_LIMITS',
      'ElicitationOutcome',
      'ElicitationRequest',
      'EnterpriseIdp',
      'FailureOutcome',
      'ListedSkill',
      'LockChange',
      'LockedTool',
      'Lockfile',
      'McpLiteError',
      'OAuthOptions',
      'OAuthRecord',
      'OAuthSecretSource',
      'OAuthStore',
      'OutcomeMeta',
      'PartialEvent',
      'PromiseOutcome',
      'PromiseProgress',
      'ResourceRequestOutcome',
      'ToolInfo',
      'ToolOutput',
      'ToolSet',
      'ToolViewInfo',
      'TypedOutcome',
      'ViewOptions',
      'bindingOf',
      'checkLock',
      'connect',
      'createLock',
      'isLockfile',
      'listSkills',
      'lockMismatch',
      'memoryOAuthStore',
      'readLockfile',
      'readSkill',
      'splitCommand',
    ],
    'mcplite/gateway': [
      'EntryBounds',
      'EntryOAuth',
      'Gateway',
      'GatewayEntry',
      'GatewayOptions',
      'GatewayServeOptions',
      'GatewayUpstream',
      'MountOptions',
      'MountedServer',
      'OpenApiEntry',
      'OpenApiOptions',
      'ProxiedTools',
      'ProxyToolsOptions',
      'RemoteEntry',
      'StdioEntry',
      'TargetEntry',
      'ToolSource',
      'ToolTransforms',
      'UpstreamOptions',
      'UpstreamSource',
      'UpstreamState',
      'UpstreamStatus',
      'gatewayCatalog',
      'gatewayTools',
      'mount',
      'openApiTools',
      'openUpstream',
      'parseGatewayConfig',
      'proxyTools',
    ],
    'mcplite/ai': ['AdapterOptions', 'toAISDKTools'],
    'mcplite/langchain': ['AdapterOptions', 'toLangChainTools'],
    'mcplite/inspector': [
      'Exchange',
      'Inspector',
      'InspectorOptions',
      'InspectorOutcome',
      'InspectorSignIn',
      'InspectorTarget',
      'McpLiteHttpTargetOptions',
      'PromptListing',
      'PromptRendering',
      'ProtocolError',
      'RoundOptions',
      'SignInStatus',
      'Snippets',
      'TargetCallOptions',
      'TargetError',
      'TargetReply',
      'ToolListing',
      'Transport',
      'createInspector',
      'createMcpLiteHttpTarget',
      'fetchTransport',
      'handlerTransport',
    ],
  };
  it('holds an allow-list for every code entry that package.json exports', () => {
    expect(Object.keys(allowed).sort()).toEqual(entries.map((e) => e.name).sort());
  });
  for (const [entry, names] of Object.entries(allowed)) {
    it(`exports from ${entry} exactly its allow-list`, () => {
      const exported = [...meanings]
        .filter(([, byPlace]) => [...byPlace.values()].some((from) => from.includes(entry)))
        .map(([name]) => name)
        .sort();
      expect(exported).toEqual([...names].sort());
    });
  }

  it('sees the same symbol exported from two entries as one meaning (McpLiteError)', () => {
    const places = meanings.get('McpLiteError');
    expect(places?.size).toBe(1);
    expect([...places!.values()][0]!.length).toBeGreaterThan(1);
  });
});
