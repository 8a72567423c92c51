import { expect, test } from "vitest";
import { ArgumentSeal } from "../call/seal";
import type { OfferCall } from "../offer/index";
import { askClientFirst, offerAnswered } from "./offer-input";

const seal = new ArgumentSeal("a signing key for these tests");
const ASKED = { who: { method: "elicitation/create", params: { message: "Who signs?", requestedSchema: { type: "object", properties: {} } } } };
const SIGN: OfferCall = { kind: "prompt", name: "docs_sign", arguments: { text: "ship it" } };
const READ: OfferCall = { kind: "resource", uri: "toolgate://docs/file:///signed.md" };

test("askClientFirst - hands the server's requests on, names the recorded use, and seals the server's own state rather than showing it", () => {
  const answer = askClientFirst(seal, "agent_1", SIGN, { inputRequests: ASKED, requestState: "upstream-state" }, "call_1");

  expect(answer).toMatchObject({ resultType: "input_required", inputRequests: ASKED, _meta: { callId: "call_1" } });
  expect(answer.requestState).not.toContain("upstream-state");
  expect(offerAnswered(seal, answer.requestState, "agent_1", SIGN)).toEqual({ requestState: "upstream-state" });
});

test("offerAnswered - a server that gave no state of its own goes on with none", () => {
  const answer = askClientFirst(seal, "agent_1", READ, { inputRequests: ASKED }, "call_1");

  expect(offerAnswered(seal, answer.requestState, "agent_1", READ)).toEqual({});
});

test.each([
  ["another agent's", "agent_2", SIGN],
  ["another prompt's", "agent_1", { ...SIGN, name: "docs_other" }],
  ["other arguments'", "agent_1", { ...SIGN, arguments: { text: "delete it" } }],
  ["a read's of the same name", "agent_1", { kind: "resource", uri: "docs_sign" }],
] as Array<[string, string, OfferCall]>)("offerAnswered - %s use does not go on with the state", (_case, agentId, offer) => {
  const answer = askClientFirst(seal, "agent_1", SIGN, { inputRequests: ASKED, requestState: "upstream-state" }, "call_1");

  expect(offerAnswered(seal, answer.requestState, agentId, offer)).toBeUndefined();
});

test("offerAnswered - a state toolgate did not seal, another kind of toolgate's state, or none, goes on with nothing", () => {
  const paused = seal.seal({ kind: "toolgate/paused-call", agentId: "agent_1", callId: "call_1", tool: "docs_sign", argumentsHash: "h", round: 0 });

  expect(offerAnswered(new ArgumentSeal("another key"), askClientFirst(seal, "agent_1", SIGN, { inputRequests: ASKED }, "c").requestState, "agent_1", SIGN)).toBeUndefined();
  expect(offerAnswered(seal, paused, "agent_1", SIGN)).toBeUndefined();
  expect(offerAnswered(seal, "v1.not-sealed", "agent_1", SIGN)).toBeUndefined();
  expect(offerAnswered(seal, undefined, "agent_1", SIGN)).toBeUndefined();
});
