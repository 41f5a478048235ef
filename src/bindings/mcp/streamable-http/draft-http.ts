import type { Principal } from '../../../core/auth.js';
import type { NeutralRequest, NeutralResponse } from '../../../core/http.js';
import { type MaybePromise, mapMaybe } from '../../../core/maybe-promise.js';
import type { ToolServer } from '../../../core/server.js';
import type { SessionDialect } from '../../../core/session-state.js';
import { accepted, jsonHttpResponse } from '../../common/http-reply.js';
import { DraftDialect, draftCatalogOf, isDraftInitialize } from '../draft-dialect/index.js';
import type { McpSession, SessionHub } from '../sessions.js';

export type { DraftDialect };

/** The dialect a draft client's session record names (`SessionRecord.dialect`). */
export const DRAFT_SEED: SessionDialect = 'draft-seed';

/** A request's dialect never announces catalog changes (the GET stream does): it needs no catalog. */
const NO_CATALOG = { tools: () => [], resources: () => [] };

/**
 * How the Streamable HTTP framing answers one POST's parsed body in MCP's shapes: `dialect` (set for a draft
 * client) rewrites the messages of the request's SSE stream; the JSON answer is rewritten by the caller.
 */
export type AnswerPost = (
  dialect: DraftDialect | undefined,
  session: McpSession | undefined,
  body: unknown,
  request: NeutralRequest,
  principal: Principal | undefined,
) => MaybePromise<NeutralResponse>;

/**
 * The draft-seed dialect (`bindings/mcp/draft-dialect`) over Streamable HTTP, around the framing's `answer`. A draft
 * `initialize` (no session yet) is answered in the draft's shapes and its session record remembers the dialect
 * (`draft-seed`: the framing passes it to the store), so that every later request on the session, on any replica
 * sharing the store, is read and answered the same way: each gets a `DraftDialect` of its own, told what the
 * session's client declared. `shutdown` is answered null, `exit` ends the session (as DELETE does). Messages
 * outside requests (the GET stream's tools/changed and resources/changed) are rewritten once per change by one
 * dialect of the binding's (`SessionHub.dialects`), so `added`/`removed` say what changed since this replica's
 * previous announcement. Other sessions and sessionless requests go to `answer` untouched.
 */
export function draftOverHttp(
  server: ToolServer,
  sessions: SessionHub | undefined,
  answer: AnswerPost,
): (
  session: McpSession | undefined,
  body: unknown,
  request: NeutralRequest,
  principal: Principal | undefined,
) => MaybePromise<NeutralResponse> {
  if (sessions) {
    const changes = new DraftDialect(draftCatalogOf(server));
    sessions.dialects.set(DRAFT_SEED, (message) => changes.outbound(message));
  }
  return (session, body, request, principal) => {
    if (session ? session.dialect !== DRAFT_SEED : !isDraftInitialize(body)) {
      return answer(undefined, session, body, request, principal);
    }
    const dialect = new DraftDialect(NO_CATALOG).declared(session?.clientCapabilities);
    const inbound = dialect.inbound(body);
    if (inbound.exit) return session && sessions ? sessions.delete(session.id).then(accepted) : accepted();
    if (inbound.reply !== undefined) return jsonHttpResponse(200, inbound.reply);
    return mapMaybe(answer(dialect, session, inbound.message, request, principal), (response) =>
      typeof response.body === 'string' ? { ...response, body: dialect.outbound(response.body) } : response,
    );
  };
}
