import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { Server } from "@modelcontextprotocol/server";
import * as z from "zod";
import type { Agent } from "../agent/schema";
import type { ToolgateError } from "../error";
import { freshView } from "../guard/index";
import type { GuardDeps } from "../guard/index";
import type { ClientSession } from "./handshake";
import { asProtocolError } from "./offers";
import { TooManyStreamsError } from "./streams";
import { knownSessionStream, sessionStream } from "./streams-session";
import { readDecision, subscribe, TooManySubscriptionsError, unsubscribe } from "./subscriptions";

/** Who subscribes, from which session, and where a refusal of the caller itself goes: to the edge, as a 401 or 403. */
export type SubscribingCaller = { deps: GuardDeps; agent: Agent; session: ClientSession; refuseCaller(error: ToolgateError): never };

const UriParams = z.looseObject({ uri: z.string().min(1).max(4096) });

/** A refusal as a read's (asProtocolError); a limit reached -32600. */
function refused(caller: SubscribingCaller, error: unknown): never {
  if (error instanceof TooManyStreamsError || error instanceof TooManySubscriptionsError) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, error.message);
  asProtocolError(caller, error);
}

/** The decision to read the URI, on what the agent may see now. */
const readNow = async (caller: SubscribingCaller, uri: string) => readDecision((await freshView(caller.deps, caller.agent)).access, uri);

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
      const decision = await readNow(caller, uri);
      await subscribe(sessionStream(caller.deps, caller.agent, session.id), decision, uri);
    } catch (error) {
      refused(caller, error);
    }
    return {};
  });
  server.setRequestHandler("resources/unsubscribe", { params: UriParams }, async ({ uri }) => {
    const session = sessionOf(caller);
    try {
      await readNow(caller, uri);
    } catch (error) {
      refused(caller, error);
    }
    const stream = knownSessionStream(caller.agent.id, session.id);
    if (stream) unsubscribe(stream, uri);
    return {};
  });
}
