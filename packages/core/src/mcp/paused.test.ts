import { expect, test } from "vitest";
import { ArgumentSeal } from "../call/seal";
import { argumentsHash, InputRequired } from "../executor/index";
import { pauseCall, pausedOf } from "./paused";

const seal = new ArgumentSeal("a signing key for these tests");
const ASKED = { who: { method: "elicitation/create", params: { message: "Who are you?", requestedSchema: { type: "object", properties: {} } } } };

test("pausedOf - opens the state pauseCall sealed: the call, its pause, how long its tool ran, the server's own state", () => {
  const paused = new InputRequired(ASKED, "upstream-state").of("call_1", 2, 250);

  const answer = pauseCall(seal, "agent_1", "whoami", { a: 1 }, paused);

  expect(pausedOf(seal, answer.requestState, "agent_1")).toEqual({
    callId: "call_1",
    tool: "whoami",
    argumentsHash: argumentsHash({ a: 1 }, "whoami"),
    round: 2,
    ranMs: 250,
    requestState: "upstream-state",
  });
});

test("pausedOf - another agent's state, or one toolgate did not seal, takes no call on", () => {
  const answer = pauseCall(seal, "agent_1", "whoami", {}, new InputRequired(ASKED, undefined).of("call_1", 0, 10));

  expect(pausedOf(seal, answer.requestState, "agent_2")).toBeUndefined();
  expect(pausedOf(new ArgumentSeal("another key"), answer.requestState, "agent_1")).toBeUndefined();
  expect(pausedOf(seal, "v1.not-sealed", "agent_1")).toBeUndefined();
});

test("pausedOf - a state sealed without the tool's time so far (or with a nonsense one) counts none", () => {
  const base = { kind: "toolgate/paused-call", agentId: "agent_1", callId: "call_1", tool: "whoami", argumentsHash: "h", round: 0 };

  expect(pausedOf(seal, seal.seal(base), "agent_1")).toMatchObject({ ranMs: 0 });
  expect(pausedOf(seal, seal.seal({ ...base, ranMs: -5 }), "agent_1")).toMatchObject({ ranMs: 0 });
  expect(pausedOf(seal, seal.seal({ ...base, ranMs: "12" }), "agent_1")).toMatchObject({ ranMs: 0 });
});
