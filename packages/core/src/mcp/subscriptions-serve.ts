import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { Server } from "@modelcontextprotocol/server";
import * as z from "zod";
import type { Agent } from "../agent/schema";
import { storeUnavailable, StoreUnavailableError, ToolgateError } from "../error";
import { freshView, isCallerRefusal } from "../guard/index";
import type { GuardDeps } from "../guard/index";
import { decideOffer } from "../offer/index";
import type { ClientSession } from "./handshake";
import { TooManyStreamsError } from "./streams";
import { knownSessionStream, sessionStream } from "./streams-session";
import { subscribe, TooManySubscriptionsError, unsubscribe } from "./subscriptions";

/** Who subscribes, from which session, and where a refusal of the caller itself goes: to the edge, as a 401 or 403. */
export type SubscribingCaller = { deps: GuardDeps; agent: Agent; session: ClientSession; refuseCaller(error: ToolgateError): never };

const UriParams = z.looseObject({ uri: z.string().min(1).max(4096) });

/**
 * A refusal as a read's: what the agent may not read is -32602 with toolgate's code (tool_not_available) as data, a
 * limit reached -32600, anything else -32603.
 */
function asProtocolError(caller: SubscribingCaller, error: unknown): never {
  if (error instanceof TooManyStreamsError || error instanceof TooManySubscriptionsError) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, error.message);
  if (error instanceof ToolgateError && isCallerRefusal(error)) caller.refuseCaller(error);
  const refused = error instanceof StoreUnavailableError ? storeUnavailable(error) : error;
  if (!(refused instanceof ToolgateError)) throw error;
  const recoverable = (refused.details as { recoverable?: boolean }).recoverable;
  const code = refused.code === "tool_not_available" ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError;
  throw new ProtocolError(code, refused.message, { code: refused.code, ...(recoverable === undefined ? {} : { recoverable }) });
}

function sessionOf({ session }: SubscribingCaller) {
  if (session.kind === "session") return session;
  throw new ProtocolError(
    ProtocolErrorCode.InvalidRequest,
    "A subscription belongs to a session: connect with the initialize handshake and send the Mcp-Session-Id it gave on every request (a 2026-07-28 client uses subscriptions/listen instead).",
  );
}

/**
 * resources/subscribe and resources/unsubscribe of a 2025-era session: only for a URI the agent may read (decideOffer,
 * refused as a read is), kept in this process with the session's own stream (GET /mcp), whose updates it receives.
 */
export function serveSubscriptions(server: Server, caller: SubscribingCaller) {
  server.setRequestHandler("resources/subscribe", { params: UriParams }, async ({ uri }) => {
    const session = sessionOf(caller);
    try {
      const { access } = await freshView(caller.deps, caller.agent);
      const decision = decideOffer(access, { kind: "resource", uri });
      if (!decision.allowed) throw decision.error;
      await subscribe(sessionStream(caller.deps, caller.agent, session.id), access, uri);
    } catch (error) {
      asProtocolError(caller, error);
    }
    return {};
  });
  server.setRequestHandler("resources/unsubscribe", { params: UriParams }, async ({ uri }) => {
    const session = sessionOf(caller);
    try {
      const { access } = await freshView(caller.deps, caller.agent);
      const decision = decideOffer(access, { kind: "resource", uri });
      if (!decision.allowed) throw decision.error;
    } catch (error) {
      asProtocolError(caller, error);
    }
    const stream = knownSessionStream(caller.agent.id, session.id);
    if (stream) unsubscribe(stream, uri);
    return {};
  });
}
