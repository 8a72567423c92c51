import { expect, test } from "vitest";
import { clientOf, declaredClient } from "./handshake";

test("declaredClient - elicitation as 2025-06-18 declares it means forms; 2025-11-25 names its modes; sampling is declared or not", () => {
  expect(declaredClient({ protocolVersion: "2025-06-18", capabilities: { elicitation: {} } })).toEqual({ protocolVersion: "2025-06-18", sampling: false, elicitation: { form: true, url: false } });
  expect(declaredClient({ protocolVersion: "2025-11-25", capabilities: { elicitation: { url: {} }, sampling: {} } })).toEqual({
    protocolVersion: "2025-11-25",
    sampling: true,
    elicitation: { form: false, url: true },
  });
  expect(declaredClient({ protocolVersion: "2025-11-25", capabilities: { elicitation: { form: {}, url: {} } } }).elicitation).toEqual({ form: true, url: true });
  expect(declaredClient({ protocolVersion: "2025-03-26" })).toEqual({ protocolVersion: "2025-03-26", sampling: false });
});

test("clientOf - a request names its client by the session id its handshake gave; without one, the agent's last client; an id toolgate never gives, no client", () => {
  const sent = (session?: string) => new Request("http://toolgate.test/mcp", { method: "POST", headers: session === undefined ? {} : { "mcp-session-id": session } });
  const session = "0b6f5c8e-8f0e-4d4e-9a53-2f7d7c1f6a10";
  expect(clientOf(sent(session), "agent-1")).toEqual({ agentId: "agent-1", sessionId: session });
  expect(clientOf(sent(), "agent-1")).toEqual({ agentId: "agent-1" });
  expect(clientOf(sent("AGENT#other"), "agent-1")).toEqual({ agentId: "agent-1", sessionId: "unknown" });
});
