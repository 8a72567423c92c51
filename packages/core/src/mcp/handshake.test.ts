import { expect, test } from "vitest";
import { ArgumentSeal } from "../call/seal";
import { clientOf, declaredClient, handshakeSession } from "./handshake";

test("declaredClient - elicitation as 2025-06-18 declares it means forms; 2025-11-25 names its modes; sampling and roots are declared or not", () => {
  expect(declaredClient({ protocolVersion: "2025-06-18", capabilities: { elicitation: {} } })).toEqual({ protocolVersion: "2025-06-18", sampling: false, roots: false, elicitation: { form: true, url: false } });
  expect(declaredClient({ protocolVersion: "2025-11-25", capabilities: { elicitation: { url: {} }, sampling: {}, roots: { listChanged: true } } })).toEqual({
    protocolVersion: "2025-11-25",
    sampling: true,
    roots: true,
    elicitation: { form: false, url: true },
  });
  expect(declaredClient({ protocolVersion: "2025-11-25", capabilities: { elicitation: { form: {}, url: {} } } }).elicitation).toEqual({ form: true, url: true });
  expect(declaredClient({ protocolVersion: "2025-03-26" })).toEqual({ protocolVersion: "2025-03-26", sampling: false, roots: false });
});

test("a session id - what the client declared, sealed, for this agent only: another agent's, a tampered one or a made-up one declares nothing; and so does none", () => {
  const seal = new ArgumentSeal("a signing key of forty characters, for tests");
  const sent = (session?: string) => new Request("http://toolgate.test/mcp", { method: "POST", headers: session === undefined ? {} : { "mcp-session-id": session } });
  const handshake = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: { elicitation: { url: {} } }, clientInfo: { name: "c", version: "1" } } };
  const session = handshakeSession(seal, "agent-1", handshake)!;
  expect(session).toMatch(/^[\x21-\x7e]+$/);
  expect(handshakeSession(seal, "agent-1", { jsonrpc: "2.0", id: 2, method: "tools/list" })).toBeUndefined();

  const known = clientOf(seal, sent(session), "agent-1");
  expect(known).toMatchObject({ kind: "session", agentId: "agent-1", declared: { protocolVersion: "2025-11-25", sampling: false, elicitation: { form: false, url: true } } });
  const another = clientOf(seal, sent(handshakeSession(seal, "agent-1", handshake)), "agent-1");
  expect(another.kind === "session" && known.kind === "session" && another.id !== known.id).toBe(true);

  const tampered = `${session.slice(0, 10)}${session[10] === "A" ? "B" : "A"}${session.slice(11)}`;
  const nothing = { kind: "unknown", agentId: "agent-1" };
  expect(clientOf(seal, sent(session), "agent-2")).toEqual({ kind: "unknown", agentId: "agent-2" });
  expect(clientOf(seal, sent(tampered), "agent-1")).toEqual(nothing);
  expect(clientOf(new ArgumentSeal("another signing key of forty characters!"), sent(session), "agent-1")).toEqual(nothing);
  expect(clientOf(seal, sent("0b6f5c8e-8f0e-4d4e-9a53-2f7d7c1f6a10"), "agent-1")).toEqual(nothing);
  expect(clientOf(seal, sent(), "agent-1")).toEqual(nothing);
});
