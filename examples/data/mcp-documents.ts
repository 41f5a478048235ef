/** The fixed, hand-written documents about MCP and MCP-lite that every generated collection includes. */

/** Documents about MCP and MCP-lite, so the spec's example query has real answers. */
export const MCP_DOCUMENTS: Array<{ title: string; body: string[] }> = [
  {
    title: 'MCP Protocol Overview',
    body: [
      'The Model Context Protocol enables language model applications to discover and call tools, read resources and use prompts through one consistent interface.',
      'The MCP specification defines JSON-RPC 2.0 messages for tool discovery (tools/list) and tool invocation (tools/call), plus transports such as stdio and Streamable HTTP.',
      'Each tool carries a name, a human-readable description and an input schema written in JSON Schema, which the model reads when deciding what to call.',
    ],
  },
  {
    title: 'Reading the Model Context Protocol Specification',
    body: [
      'This walkthrough of the MCP specification follows a single tool call from the initialize handshake to the final result.',
      'The specification separates protocol errors, reported as JSON-RPC errors, from tool failures, reported inside a successful result with isError set.',
      'Understanding that split early saves a lot of confusion when building both servers and clients for the Model Context Protocol.',
    ],
  },
  {
    title: 'MCP-lite: A Stateless Subset of the Model Context Protocol',
    body: [
      'MCP-lite keeps the core ideas of the Model Context Protocol, tool discovery and tool invocation, and drops session state so that any replica can answer any request.',
      'The MCP-lite specification adds an explicit response type to every result: answer, promise, elicitation, failure or request-for-more-resource.',
      'Because the semantics are transport independent, the same tools can be served over HTTP with JSON-RPC payloads or over gRPC with Protocol Buffers.',
    ],
  },
  {
    title: 'Promises and Long-Running Tools in the MCP Specification',
    body: [
      'Some tools take minutes, not milliseconds. The MCP-lite specification handles them with promises: the server answers at once with an opaque promise token and an estimated completion time.',
      'The client later calls the redeem system tool with the token and receives either the final result or a fresh promise.',
      'Tokens must be unguessable, unique within the server namespace and time-bounded, which rules out sequential identifiers.',
    ],
  },
  {
    title: 'Streaming Tool Results with SSE in MCP',
    body: [
      'Streaming lets a tool deliver partial results while it works. In the MCP-lite HTTP binding a client asks for it with Accept: text/event-stream.',
      'The server sends message events carrying partial content, then a done event with the final _meta section, heartbeat events while idle and an error event if something goes wrong.',
      'The Model Context Protocol itself reports progress through notifications, so a bridge between the two maps partials onto progress messages.',
    ],
  },
  {
    title: 'Elicitation in the Model Context Protocol',
    body: [
      'Elicitation lets a tool ask the user for missing information instead of guessing, for example an email address or a preferred frequency.',
      'The MCP specification describes elicitation requests with a message and a restricted JSON Schema for the answers.',
      'A stateless server can still support elicitation by signing the state it needs and sending it to the client, which returns it with the answers.',
    ],
  },
  {
    title: 'Comparing MCP Transports: stdio, Streamable HTTP and gRPC',
    body: [
      'The Model Context Protocol started with stdio for local servers and added Streamable HTTP for remote ones.',
      'MCP-lite adds a gRPC binding with GetTools, CallTool and CallToolStream, keeping the same semantics as the HTTP binding.',
      'Choosing a transport is mostly about the environment: stdio for desktop tools, HTTP for web infrastructure, gRPC for service-to-service calls.',
    ],
  },
  {
    title: 'Versioning and Compatibility in the MCP Specification',
    body: [
      'The MCP specification is versioned by date, and clients and servers negotiate a protocol revision during initialization.',
      'MCP-lite avoids negotiation by versioning its base URL, so an HTTP client knows what it speaks from the path alone.',
      'Both approaches aim at the same goal: letting the protocol evolve without breaking existing tools.',
    ],
  },
  {
    title: 'Error Handling Patterns for MCP Servers',
    body: [
      'Good error messages are part of the interface. When a model calls a tool that does not exist, an MCP-lite server answers with error code -32601 and lists the available tools with a suggestion.',
      'Invalid arguments are reported as -32602 with the offending field and what was expected, which lets the model correct itself on the next attempt.',
      'The Model Context Protocol specification leaves much of this to implementations, so consistent conventions matter.',
    ],
  },
];
