/**
 * The mcplite client under the official conformance suite's client scenarios (`npm run conformance`): the suite
 * runs this with the scenario's server URL as the last argument, the scenario name in MCP_CONFORMANCE_SCENARIO
 * and the revision in MCP_CONFORMANCE_PROTOCOL_VERSION (2026-07-28 is the stateless revision).
 */
import { connect, type OAuthOptions } from '../../src/client/index.js';

const url = process.argv.at(-1)!;
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
/**
 * What a scenario hands its client: pre-registered credentials or a signing key (auth), an identity provider
 * and the user's ID token (enterprise-managed authorization), a workload's JWT (workload identity), or the tool
 * calls to make with their arguments (http-custom-headers).
 */
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<
  string,
  string | undefined
> & {
  toolCalls?: Array<{ name: string; arguments: Record<string, unknown> }>;
};

/**
 * The authorization server a pre-registered client's credentials belong to. A user who registered a client names
 * its issuer (`oauth.issuer`: a secret goes nowhere else); some scenarios hand it over, the others only the
 * credentials, so here the user reads it off the scenario's own protected resource metadata, as they would have
 * when they registered.
 */
async function issuerOf(resource: string): Promise<string | undefined> {
  if (context.issuer) return context.issuer;
  const target = new URL(resource);
  const res = await fetch(`${target.origin}/.well-known/oauth-protected-resource${target.pathname}`);
  if (!res.ok) return undefined;
  const metadata = (await res.json()) as { authorization_servers?: string[] };
  return metadata.authorization_servers?.[0];
}

const issuer = context.client_secret || context.private_key_pem ? await issuerOf(url) : undefined;

const client = await connect(url, {
  binding: 'mcp',
  clientInfo: { name: 'mcplite-conformance-client', version: '1.0.0' },
  ...(version ? { mcpRevision: version === '2026-07-28' ? 'stateless' : 'handshake' } : {}),
  oauth: oauthOptions(),
});

/**
 * OAuth as a user of the public API sets it up. The scenarios' authorization servers approve at once, so the
 * user-agent step is a request that does not follow the redirect: its Location is where a browser would land.
 */
function oauthOptions(): OAuthOptions {
  const userAgent = async (authorizationUrl: URL) => {
    const res = await fetch(authorizationUrl, { redirect: 'manual' });
    const location = res.headers.get('location');
    if (!location) throw new Error(`The authorization endpoint answered ${res.status} without a redirect`);
    return location;
  };
  const common: OAuthOptions = {
    redirectUrl: 'http://localhost:3000/callback',
    onAuthorizationUrl: userAgent,
    clientName: 'mcplite-conformance-client',
    // A Client ID Metadata Document URL: used where the authorization server takes one (CIMD).
    clientMetadataUrl: 'https://conformance-test.local/client-metadata.json',
  };
  // DPoP-bound tokens: the scenarios' authorization server offers them, their resource metadata does not say it
  // takes them (RFC 9728), so the user asks for them.
  if (scenario.startsWith('auth/dpop')) return { ...common, dpop: true };
  if (context.client_id === undefined) return common;
  if (scenario === 'auth/enterprise-managed-authorization')
    return {
      grant: 'enterprise',
      clientId: context.client_id,
      ...(issuer ? { issuer } : {}),
      ...(context.client_secret ? { clientSecret: context.client_secret } : {}),
      idp: {
        issuer: context.idp_issuer ?? '',
        tokenEndpoint: context.idp_token_endpoint ?? '',
        clientId: context.idp_client_id ?? '',
        idToken: context.idp_id_token ?? '',
      },
    };
  // Workload identity: the platform's current token, read at each grant.
  if (scenario === 'auth/wif-jwt-bearer')
    return { grant: 'jwt-bearer', clientId: context.client_id, assertion: () => context.valid_jwt ?? '' };
  if (scenario.startsWith('auth/client-credentials'))
    return {
      grant: 'client_credentials',
      clientId: context.client_id,
      ...(issuer ? { issuer } : {}),
      ...(context.client_secret ? { clientSecret: context.client_secret } : {}),
      ...(context.private_key_pem ? { privateKey: context.private_key_pem } : {}),
      ...(context.signing_algorithm ? { signingAlgorithm: context.signing_algorithm } : {}),
    };
  return {
    ...common,
    clientId: context.client_id,
    ...(issuer ? { issuer } : {}),
    ...(context.client_secret ? { clientSecret: context.client_secret } : {}),
  };
}
try {
  const tools = await client.listTools();
  const calls =
    context.toolCalls ??
    tools.map((tool) => {
      const props = (tool.inputSchema as { properties?: Record<string, { type?: string }> }).properties ?? {};
      // Numbers for number parameters (add_numbers), nothing else: the scenarios check what arrives.
      const args = Object.fromEntries(
        Object.entries(props)
          .filter(([, p]) => p.type === 'number' || p.type === 'integer')
          .map(([k], i) => [k, i + 1]),
      );
      return { name: tool.name, arguments: args };
    });
  for (const { name, arguments: args } of calls) {
    if (scenario === 'initialize') break;
    try {
      let outcome = await client.call(name, args, { timeout: 20_000 });
      // Accept elicitations with nothing typed: the client fills in the schema's defaults (SEP-1034).
      for (let round = 0; outcome.type === 'elicitation' && round < 4; round++)
        outcome = await outcome.answer({});
      process.stdout.write(`${name}: ${outcome.type}\n`);
    } catch (err) {
      // A scenario's server may refuse a call (it only checks what the client sent): report it, go on.
      process.stdout.write(`${name}: error ${(err as Error).message}\n`);
    }
  }
} finally {
  await client.close();
}
