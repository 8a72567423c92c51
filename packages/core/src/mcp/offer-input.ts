import { inputRequired } from "@modelcontextprotocol/server";
import type { InputRequiredResult, InputRequests } from "@modelcontextprotocol/server";
import type { ArgumentSeal } from "../call/seal";
import { argumentsHash } from "../executor/index";
import type { AskedForInput } from "../executor/schema";
import type { OfferCall } from "../offer/index";

/**
 * What the request state of a read or get whose server asks its client first holds, sealed: whose it is, what was read
 * or got (the URI, or the prompt and its arguments' hash), and the server's own request state (AEAD: tampering opens nothing).
 */
type OfferInputState = { kind: "toolgate/offer-input"; agentId: string; offer: OfferCall["kind"]; name: string; argumentsHash?: string; requestState?: string };

/** The read or get as its state names it: its kind, and the agent's URI or the prompt's name and its arguments' hash. */
const named = (offer: OfferCall): Pick<OfferInputState, "offer" | "name" | "argumentsHash"> =>
  offer.kind === "resource" ? { offer: offer.kind, name: offer.uri } : { offer: offer.kind, name: offer.name, argumentsHash: argumentsHash(offer.arguments, offer.name) };

/**
 * The input_required answer of a read or get whose server asks the agent's client first: the server's requests, for
 * the client to answer, and the use sealed in the request state, so any instance takes the client's next one. `callId`:
 * the use recorded, as an answer's _meta names it.
 */
export function askClientFirst(seal: ArgumentSeal, agentId: string, offer: OfferCall, { inputRequests, requestState }: AskedForInput, callId: string): InputRequiredResult {
  const state: OfferInputState = { kind: "toolgate/offer-input", agentId, ...named(offer), ...(requestState === undefined ? {} : { requestState }) };
  return { ...inputRequired({ inputRequests: inputRequests as InputRequests, requestState: seal.seal(state) }), _meta: { callId } };
}

/**
 * The server's own request state (if it gave one) a read or get sent again goes on with, when its request state is one
 * toolgate gave this agent for this same read or get; undefined for any other.
 */
export function offerAnswered(seal: ArgumentSeal, requestState: unknown, agentId: string, offer: OfferCall): { requestState?: string } | undefined {
  if (typeof requestState !== "string") return undefined;
  const state = seal.open(requestState) as Partial<OfferInputState> | undefined;
  if (state?.kind !== "toolgate/offer-input" || state.agentId !== agentId) return undefined;
  const expected = named(offer);
  if (state.offer !== expected.offer || state.name !== expected.name || state.argumentsHash !== expected.argumentsHash) return undefined;
  return typeof state.requestState === "string" ? { requestState: state.requestState } : {};
}
