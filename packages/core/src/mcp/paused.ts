import { inputRequired } from "@modelcontextprotocol/server";
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
export function pauseCall(seal: ArgumentSeal, agentId: string, tool: string, args: Record<string, unknown>, { inputRequests, requestState, paused }: InputRequired): InputRequiredResult {
  const state: PausedState = {
    kind: "toolgate/paused-call",
    agentId,
    callId: paused!.callId,
    round: paused!.round,
    ranMs: paused!.ranMs,
    tool,
    argumentsHash: argumentsHash(args, tool),
    ...(requestState === undefined ? {} : { requestState }),
  };
  return inputRequired({ inputRequests: inputRequests as InputRequests, requestState: seal.seal(state) });
}

/** The paused call a tools/call takes on, from its request state, when that state is toolgate's own and this agent's. */
export function pausedOf(seal: ArgumentSeal, requestState: unknown, agentId: string): PausedCall | undefined {
  if (typeof requestState !== "string") return undefined;
  const state = seal.open(requestState) as Partial<PausedState> | undefined;
  if (state?.kind !== "toolgate/paused-call" || state.agentId !== agentId) return undefined;
  const { callId, tool, argumentsHash: hash, round, ranMs, requestState: upstream } = state;
  if (typeof callId !== "string" || typeof tool !== "string" || typeof hash !== "string" || typeof round !== "number") return undefined;
  // A state sealed before pauses carried the tool's time so far counts none.
  const ran = typeof ranMs === "number" && ranMs >= 0 ? ranMs : 0;
  return { callId, tool, argumentsHash: hash, round, ranMs: ran, ...(typeof upstream === "string" ? { requestState: upstream } : {}) };
}
