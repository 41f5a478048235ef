/** What a server's OpenTelemetry tracing does (`ToolServerOptions.telemetry`; docs/observability.md). */
export interface TelemetryOptions {
  /**
   * Whether the server traces its operations and records `mcp.server.operation.duration`. Default: when
   * `@opentelemetry/api` is installed and an SDK has registered a tracer or meter provider by the time the
   * server is made (start the SDK first, as OpenTelemetry asks of every instrumented library); without one, the
   * server pays nothing. `true` installs tracing anyway (for an SDK registered later); `false` never does.
   */
  enabled?: boolean;
  /**
   * Records each tool call's arguments as `gen_ai.tool.call.arguments` (JSON). Off by default: arguments often
   * carry personal data or secrets, and a trace backend is read by more people than the tool's logs.
   */
  recordArguments?: boolean;
  /** Records each tool call's answer as `gen_ai.tool.call.result` (JSON). Off by default, for the same reason. */
  recordResults?: boolean;
}
