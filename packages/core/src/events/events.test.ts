import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, test } from "vitest";
import type { CallRecord } from "../call/schema";
import { marshall } from "@aws-sdk/util-dynamodb";
import { publishedEvents } from "../environment";
import { agentSpawned, APPROVALS_PATTERN, awaitingConfirmation, BusPublisher, callSettled, EVENT_DETAILS, publishCallEvents, RecordingPublisher, roleChanged, TOOLGATE_EVENTS_PATTERN, ToolgateEventType } from "./index";
import { loadWebhookRules, publishedCallEvents } from "./rules";

const call: CallRecord = {
  callId: "call_1",
  agentId: "agt_1",
  roleId: "rol_1",
  tool: "delete_server",
  group: "ops",
  status: "awaiting_confirmation",
  arguments: { target: "secret-target" },
  startedAt: "2026-01-01T00:00:00.000Z",
  deadline: "2026-01-01T00:15:00.000Z",
};

describe("event shapes", () => {
  test("awaitingConfirmation - a waiting call says who asked for which tool and where to answer, never its arguments", () => {
    const event = awaitingConfirmation(call)!;
    expect(event.type).toBe("call.awaiting_confirmation");
    expect(EVENT_DETAILS[event.type].parse(event.detail)).toEqual({
      callId: "call_1",
      agentId: "agt_1",
      roleId: "rol_1",
      tool: "delete_server",
      group: "ops",
      startedAt: call.startedAt,
      deadline: call.deadline,
      approve: "/calls/call_1/approve",
      deny: "/calls/call_1/deny",
    });
    expect(JSON.stringify(event)).not.toContain("secret-target");
    expect(awaitingConfirmation({ ...call, status: "running" })).toBeUndefined();
  });

  test("callSettled - an ended call carries its status, error code and duration, never its arguments, result or error message", () => {
    const ended: CallRecord = {
      ...call,
      status: "error",
      result: { content: "secret-result", type: "error" },
      error: { code: "executor_failed", message: "secret-message" },
      finishedAt: "2026-01-01T00:00:01.500Z",
      durationMs: 1500,
    };
    const event = callSettled(ended)!;
    expect(EVENT_DETAILS["call.settled"].parse(event.detail)).toMatchObject({ status: "error", errorCode: "executor_failed", durationMs: 1500 });
    expect(JSON.stringify(event)).not.toMatch(/secret-(target|result|message)/);
    for (const status of ["awaiting_confirmation", "authorized", "running"] as const) expect(callSettled({ ...call, status })).toBeUndefined();
  });

  test("callSettled - a lapsed call without a duration gets one from its start to its finish", () => {
    const event = callSettled({ ...call, status: "expired", finishedAt: "2026-01-01T00:15:05.000Z", error: { code: "confirmation_expired", message: "x" } })!;
    expect(event.detail).toMatchObject({ status: "expired", durationMs: 905_000, errorCode: "confirmation_expired" });
  });

  test("callSettled - an answered question names who answered it (an answering token by id and name), never the answer", () => {
    const answered: CallRecord = {
      ...call,
      tool: "ask_user",
      group: "console",
      status: "completed",
      result: { content: '{"action":"accept","answer":"secret-answer"}', type: "json" },
      answeredBy: "atk_1",
      answeredByName: "chat-bot",
      finishedAt: "2026-01-01T00:00:02.000Z",
      durationMs: 2000,
    };
    const event = callSettled(answered)!;
    expect(EVENT_DETAILS["call.settled"].parse(event.detail)).toMatchObject({ status: "completed", answeredBy: "atk_1", answeredByName: "chat-bot" });
    expect(JSON.stringify(event)).not.toMatch(/secret-(target|answer)/);
    expect(callSettled({ ...answered, answeredBy: "admin", answeredByName: undefined })!.detail).not.toHaveProperty("answeredByName");
  });

  test("agentSpawned and roleChanged - validate against their schemas", () => {
    const agent = { id: "agt_2", roleId: "rol_1", name: "a", status: "active" as const, department: null, level: null, workspaceRoot: null, createdBy: "root", createdAt: "t", tokenVersion: 1 };
    const spawned = agentSpawned(agent, { task: "Do it.", messageId: "msg_1" });
    expect(EVENT_DETAILS["agent.spawned"].parse(spawned.detail)).toEqual({ agentId: "agt_2", roleId: "rol_1", name: "a", createdBy: "root", createdAt: "t", task: "Do it.", messageId: "msg_1" });
    expect(JSON.stringify(spawned)).not.toContain("tokenVersion");
    const changed = roleChanged({ id: "rol_1", name: "r", version: 3, toolGroups: null }, "deleted", "t");
    expect(EVENT_DETAILS["role.changed"].parse(changed.detail)).toEqual({ roleId: "rol_1", name: "r", change: "deleted", version: 3, toolGroups: null, at: "t" });
  });

  test("TOOLGATE_EVENTS_PATTERN - names every detail type that has a schema", () => {
    expect([...TOOLGATE_EVENTS_PATTERN.detailType].sort()).toEqual(Object.keys(EVENT_DETAILS).sort());
    expect(Object.values(ToolgateEventType).sort()).toEqual(Object.keys(EVENT_DETAILS).sort());
  });
});

describe("BusPublisher", () => {
  test("BusPublisher - a bus that refuses is logged with the event's type and id, never its detail, and publish still resolves", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(500, { "content-type": "application/x-amz-json-1.1" });
      res.end(JSON.stringify({ __type: "InternalException", message: "down" }));
    });
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
    const lines: string[] = [];
    const publisher = new BusPublisher({
      target: () => ({ busName: "b", endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
      log: (line) => lines.push(line),
    });
    try {
      await expect(publisher.publish(callSettled({ ...call, status: "denied", finishedAt: "2026-01-01T00:01:00.000Z" }))).resolves.toBeUndefined();
    } finally {
      server.close();
    }
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: "warn", message: "events: publish failed", events: ["call.settled call_1"] });
    expect(lines[0]).not.toContain("delete_server");
  });

  test("BusPublisher - with no bus linked nothing is sent and nothing is logged", async () => {
    const lines: string[] = [];
    await new BusPublisher({ target: () => undefined, log: (line) => lines.push(line) }).publish(awaitingConfirmation(call));
    expect(lines).toEqual([]);
  });
});

describe("per-call events", () => {
  const rule = (name: string, pattern: Record<string, unknown>) => ({ name, pattern, webhook: "https://hooks.example.test/x" });

  test("publishedCallEvents - per-call events only where a rule subscribes, all with always, and a wrong setting says what it takes", () => {
    expect(publishedCallEvents([], undefined)).toEqual([]);
    expect(publishedCallEvents([rule("Modules", { source: ["toolgate"], detailType: ["group.changed", "agent.spawned"] })], "")).toEqual([]);
    expect(publishedCallEvents([rule("Approvals", APPROVALS_PATTERN)], undefined)).toEqual(["call.awaiting_confirmation", "question.asked"]);
    expect(publishedCallEvents([rule("Everything", TOOLGATE_EVENTS_PATTERN)], "subscribed")).toEqual(["call.awaiting_confirmation", "question.asked", "call.settled"]);
    expect(publishedCallEvents([rule("AnySource", { detailType: ["call.settled"] })], undefined)).toEqual(["call.settled"]);
    expect(publishedCallEvents([rule("Failures", { source: ["toolgate"], detail: { status: ["error"] } })], undefined)).toEqual(["call.awaiting_confirmation", "question.asked", "call.settled"]);
    expect(publishedCallEvents([rule("Elsewhere", { source: ["billing"] })], undefined)).toEqual([]);
    expect(publishedCallEvents([], "always")).toEqual(["call.awaiting_confirmation", "question.asked", "call.settled"]);
    expect(() => publishedCallEvents([], "sometimes")).toThrow('TOOLGATE_CALL_EVENTS must be one of subscribed, always; got "sometimes".');
  });

  test("BusPublisher - a per-call event nobody subscribes to is never sent; toolgate's other events always are", async () => {
    const sent: string[] = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        const entries = (JSON.parse(body) as { Entries: Array<{ DetailType: string }> }).Entries;
        sent.push(...entries.map((entry) => entry.DetailType));
        res.writeHead(200, { "content-type": "application/x-amz-json-1.1" });
        res.end(JSON.stringify({ FailedEntryCount: 0, Entries: entries.map((_, index) => ({ EventId: String(index) })) }));
      });
    });
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const settled = callSettled({ ...call, status: "denied", finishedAt: "2026-01-01T00:01:00.000Z" });
    const role = roleChanged({ id: "rol_1", name: "ops", version: 2, toolGroups: ["ops"] }, "updated", "2026-01-01T00:00:00.000Z");
    try {
      const none = new BusPublisher({ target: () => ({ busName: "b", endpoint }), publishes: () => publishedEvents({}) });
      await none.publish(awaitingConfirmation(call), settled, role);
      expect(sent).toEqual(["role.changed"]);
      sent.length = 0;
      const approvals = new BusPublisher({ target: () => ({ busName: "b", endpoint }), publishes: () => publishedEvents({ TOOLGATE_CALL_EVENT_TYPES: "call.awaiting_confirmation" }) });
      await approvals.publish(awaitingConfirmation(call), settled);
      expect(sent).toEqual(["call.awaiting_confirmation"]);
    } finally {
      server.close();
    }
  });
});

describe("loadWebhookRules", () => {
  const rule = { name: "Approvals", pattern: { source: ["toolgate"], detailType: ["call.awaiting_confirmation"] }, webhook: "https://hooks.example.test/x" };

  test("loadWebhookRules - inline JSON, a file named by the variable, the fallback file, or none", async () => {
    const dir = await mkdtemp(join(tmpdir(), "toolgate-rules-"));
    try {
      const file = join(dir, "rules.json");
      await writeFile(file, JSON.stringify([rule]));
      expect(loadWebhookRules(JSON.stringify([rule]))).toEqual([rule]);
      expect(loadWebhookRules(file)).toEqual([rule]);
      expect(loadWebhookRules(undefined, file)).toEqual([rule]);
      expect(loadWebhookRules(undefined, join(dir, "absent.json"))).toEqual([]);
      expect(loadWebhookRules("")).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("loadWebhookRules - a rule that is not valid stops the start with where and why", () => {
    expect(() => loadWebhookRules("[not json")).toThrow("The event rules in TOOLGATE_EVENT_RULES are not valid JSON.");
    expect(() => loadWebhookRules(JSON.stringify([{ ...rule, webhook: "ftp://x" }]))).toThrow(/webhook/);
    expect(() => loadWebhookRules(JSON.stringify([rule, rule]))).toThrow(/unique/);
    expect(() => loadWebhookRules(JSON.stringify([{ ...rule, pattern: { source: "toolgate" } }]))).toThrow(/pattern\.source/);
  });
});

describe("call events from the table's stream", () => {
  const image = (record: CallRecord) => marshall({ pk: `AGENT#${record.agentId}`, sk: `CALL#${record.callId}`, call: record }, { removeUndefinedValues: true });
  const running: CallRecord = { ...call, status: "running", deadline: undefined };
  const completed: CallRecord = { ...running, status: "completed", finishedAt: "2026-01-01T00:00:02.000Z", durationMs: 2000, result: { content: "secret-result", type: "text" } };

  test("a write that settles a call is call.settled once; a start, a rewrite of the same status and other items are nothing", async () => {
    const published = new RecordingPublisher();
    await publishCallEvents(published, [
      { dynamodb: { NewImage: image(running) } },
      { dynamodb: { OldImage: image(running), NewImage: image(completed) } },
      { dynamodb: { OldImage: image(completed), NewImage: image(completed) } },
      { dynamodb: { NewImage: marshall({ pk: "AGENT#agt_1", sk: "GUARD", state: {} }) } },
      { dynamodb: { OldImage: image(completed) } },
    ]);
    expect(published.of(ToolgateEventType.CallSettled)).toEqual([
      { callId: "call_1", agentId: "agt_1", roleId: "rol_1", tool: "delete_server", group: "ops", status: "completed", startedAt: running.startedAt, finishedAt: completed.finishedAt, durationMs: 2000 },
    ]);
    expect(JSON.stringify(published.events)).not.toMatch(/secret-(target|result)/);
  });

  test("a call refused before it started (its first write) is call.settled with the refusal's code", async () => {
    const published = new RecordingPublisher();
    const refused: CallRecord = { ...running, status: "refused", error: { code: "tool_not_available", message: "No." }, finishedAt: running.startedAt };
    await publishCallEvents(published, [{ dynamodb: { NewImage: image(refused) } }]);
    expect(published.of(ToolgateEventType.CallSettled)).toMatchObject([{ status: "refused", errorCode: "tool_not_available" }]);
  });
});
