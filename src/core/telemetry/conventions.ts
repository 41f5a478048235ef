/**
 * The names of the OpenTelemetry semantic conventions for MCP (and GenAI tools) that mcplite's spans and metrics
 * carry, plus mcplite's own (`mcplite.*`). Kept as constants so that the server, the work and the client spell
 * them the same way; docs/observability.md lists what each carries.
 */
export const ATTR = {
  methodName: 'mcp.method.name',
  protocolVersion: 'mcp.protocol.version',
  sessionId: 'mcp.session.id',
  toolName: 'gen_ai.tool.name',
  operationName: 'gen_ai.operation.name',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  requestId: 'jsonrpc.request.id',
  networkTransport: 'network.transport',
  networkProtocol: 'network.protocol.name',
  clientAddress: 'client.address',
  serverAddress: 'server.address',
  errorType: 'error.type',
  binding: 'mcplite.binding',
  transport: 'mcplite.transport',
  outcome: 'mcplite.outcome',
} as const;

/** `gen_ai.operation.name` of a tool call. */
export const EXECUTE_TOOL = 'execute_tool';

/** `error.type` of a call that ran and failed (a failure outcome, `isError` on MCP). */
export const TOOL_ERROR = 'tool_error';

/** The server metric: the duration of each operation a server answers, in seconds. */
export const SERVER_DURATION = 'mcp.server.operation.duration';

/** The client metric: the duration of each operation a client makes, in seconds. */
export const CLIENT_DURATION = 'mcp.client.operation.duration';

/** The histogram buckets the MCP conventions advise for both duration metrics (seconds). */
export const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** The tracer and meter name (the instrumentation scope). */
export const SCOPE = 'mcplite';
