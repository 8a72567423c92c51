import { inputRequired, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { InputRequiredResult, InputRequests } from "@modelcontextprotocol/server";
import type { ArgumentSeal } from "../call/seal";
import { argumentsHash } from "../executor/index";
import type { InputRequired } from "../executor/index";
import type { PausedCall } from "../guard/resume";

/** What a paused call's request state holds, sealed: the call, whose it is, and what it was asked as (AEAD: tampering opens nothing). */
type PausedState = PausedCall & { kind: "toolgate/paused-call"; agentId: string };

/**
 * The input_required answer that pauses a call for its agent's client: the MCP server's requests, for the client to
 * answer, and the call sealed in the request state, so any instance can take the client's next request on.
 */
export function pauseCall(seal: ArgumentSeal, agentId: string, tool: string, args: Record<string, unknown>, { inputRequests, requestState, paused, held }: InputRequired): InputRequiredResult {
  const state: PausedState = {
    kind: "toolgate/paused-call",
    agentId,
    callId: paused!.callId,
    round: paused!.round,
    ranMs: paused!.ranMs,
    tool,
    argumentsHash: argumentsHash(args, tool),
    ...(requestState === undefined ? {} : { requestState }),
    ...(held ? { held: held.id } : {}),
  };
  return inputRequired({ inputRequests: inputRequests as InputRequests, requestState: seal.seal(state) });
}

/** The paused call a tools/call takes on, from its request state, when that state is toolgate's own and this agent's. */
export function pausedOf(seal: ArgumentSeal, requestState: unknown, agentId: string): PausedCall | undefined {
  if (typeof requestState !== "string") return undefined;
  const state = seal.open(requestState) as Partial<PausedState> | undefined;
  if (state?.kind !== "toolgate/paused-call" || state.agentId !== agentId) return undefined;
  const { callId, tool, argumentsHash: hash, round, ranMs, requestState: upstream, held } = state;
  if (typeof callId !== "string" || typeof tool !== "string" || typeof hash !== "string" || typeof round !== "number") return undefined;
  // A state sealed before pauses carried the tool's time so far counts none.
  const ran = typeof ranMs === "number" && ranMs >= 0 ? ranMs : 0;
  return { callId, tool, argumentsHash: hash, round, ranMs: ran, ...(typeof upstream === "string" ? { requestState: upstream } : {}), ...(typeof held === "string" ? { held } : {}) };
}

/**
 * A request state toolgate cannot open as one it gave this agent for this request (altered, another agent's, made up, or
 * a state of another kind): MCP says a server refuses it, and toolgate never takes it as a new call.
 */
export const foreignRequestState = () =>
  new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    "This request's requestState is not one toolgate gave this agent for this request (it was altered, belongs to another agent or request, or was made up): send the request again without it to make a new call.",
  );
