/** The same call outside the inspector: as curl (HTTP bindings), as a `mcplite call` line, as client code. */
export interface Snippets {
  curl?: string;
  cli: string;
  code: string;
}

/** Quotes a word for a POSIX shell: single quotes, with each `'` written as `'\''`. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Builds the snippets for one call. `target` is what `connect()` and the CLI take (a URL or a command line);
 * curl is given for MCP-lite HTTP targets, whose JSON-RPC a shell can send as is.
 */
export function snippetsFor(
  target: string,
  binding: string,
  tool: string,
  args: Record<string, unknown>,
): Snippets {
  const json = JSON.stringify(args);
  const argsJson = JSON.stringify(args, null, 2).replaceAll('\n', '\n  ');
  const snippets: Snippets = {
    cli: `mcplite call ${shellQuote(target)} ${shellQuote(tool)} --args ${shellQuote(json)}`,
    code: [
      "import { connect } from 'mcplite/client';",
      '',
      `const client = await connect(${JSON.stringify(target)});`,
      `const outcome = await client.call(${JSON.stringify(tool)}, ${argsJson});`,
      'console.log(outcome);',
      'await client.close();',
    ].join('\n'),
  };
  if (binding === 'mcp-lite-http') {
    const base = target.endsWith('/') ? target : `${target}/`;
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: tool, arguments: args },
    });
    snippets.curl = `curl -sS ${shellQuote(`${base}calltools`)} -H 'content-type: application/json' -d ${shellQuote(body)}`;
  }
  return snippets;
}
