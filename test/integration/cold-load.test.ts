import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { beforeAll, expect, test } from "vitest";
import type { Toolgate } from "@toolgate/core/toolgate";
import { api, testToolgate, tool } from "../support/toolgate";
import type { Api } from "../support/toolgate";

type Sent = { command: string; input: Record<string, any> };

/** Every request a toolgate's DynamoDB client sends once begun, as the real client sends it (its values marshalled). */
function recordRequests() {
  const sent: Sent[] = [];
  let recording = false;
  const instrument = (client: DynamoDBClient) =>
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (recording) sent.push({ command: String(context.commandName), input: structuredClone(args.input as Record<string, any>) });
        return next(args);
      },
      { step: "initialize", name: "recordRequests" },
    );
  return { sent, instrument, begin: () => void (recording = true) };
}

const GROUPS = 40;
const groupId = (n: number) => `cold_${n}`;
const toolsOf = (n: number) => [tool(`cold_${n}_read`), tool(`cold_${n}_write`)];

let writer: Toolgate;
let admin: Api;
let agent: { id: string; token: string };

const namesOf = (body: { tools: Array<{ function: { name: string } }> }) => body.tools.map((t) => t.function.name).sort();
const groupKeysRead = (sent: Sent[]) =>
  sent
    .filter((request) => request.command === "BatchGetItemCommand")
    .flatMap((request) => Object.values(request.input.RequestItems as Record<string, { Keys: Array<{ sk: { S: string } }> }>).flatMap((batch) => batch.Keys))
    .map((key) => key.sk.S)
    .filter((sk) => sk.startsWith("GROUP#"))
    .sort();

beforeAll(async () => {
  writer = await testToolgate();
  admin = api(writer);
  for (let n = 0; n < GROUPS; n++) expect((await admin("PUT", `/groups/${groupId(n)}`, { body: { description: `Group ${n}.`, tools: toolsOf(n) } })).status).toBe(201);
  expect((await admin("POST", "/tools/cold_2_write/disable")).status).toBe(200);
  const role = await admin("POST", "/roles", { body: { name: "cold reader", toolGroups: [groupId(1), groupId(2)] } });
  const created = await admin("POST", "/agents", { body: { roleId: role.body.id, department: "cold" } });
  agent = { id: created.body.agent.id, token: created.body.token };
});

test("catalog - a cold process serving an agent whose role names 2 of 40 groups reads those 2, the policy overrides, the Cedar policies and the groups of its department and its own, not the whole catalog", async () => {
  const { sent, instrument, begin } = recordRequests();
  const cold = await testToolgate({ table: writer.db.table, instrument });
  begin();
  const listed = await api(cold)("GET", `/agents/${agent.id}/tools`, { token: agent.token });
  expect(listed.status).toBe(200);
  expect(namesOf(listed.body)).toEqual(["cold_1_read", "cold_1_write", "cold_2_read"]);
  expect(groupKeysRead(sent)).toEqual([`GROUP#${groupId(1)}`, `GROUP#${groupId(2)}`]);
  const catalogQueries = sent.filter((request) => request.command === "QueryCommand" && request.input.ExpressionAttributeValues?.[":pk"]?.S === "CATALOG");
  expect(catalogQueries.map((request) => request.input.ExpressionAttributeValues?.[":prefix"]?.S).sort()).toEqual(
    ["CEDAR#", "POLICY#", `SCOPED#agent:${agent.id}#`, "SCOPED#department:cold#"].sort(),
  );
  expect(sent.map((request) => request.command)).not.toContain("ScanCommand");

  const called = await api(cold)("POST", `/agents/${agent.id}/calls`, { token: agent.token, body: { tool: "cold_1_read" } });
  expect(called.body.error ?? called.body.status).toBe("no_executor");
});

test("catalog - a cold process still tells a tool of another group (403 tool_not_available) from one that exists nowhere (404 unknown_tool)", async () => {
  const cold = api(await testToolgate({ table: writer.db.table }));
  const elsewhere = await cold("POST", `/agents/${agent.id}/calls`, { token: agent.token, body: { tool: "cold_7_read" } });
  expect(elsewhere.status).toBe(403);
  expect(elsewhere.body).toMatchObject({ error: "tool_not_available" });
  expect(elsewhere.body.message).toContain(`"${groupId(7)}"`);
  const nowhere = await cold("POST", `/agents/${agent.id}/calls`, { token: agent.token, body: { tool: "cold_none" } });
  expect(nowhere.status).toBe(404);
  expect(nowhere.body).toMatchObject({ error: "unknown_tool" });
  const disabled = await cold("POST", `/agents/${agent.id}/calls`, { token: agent.token, body: { tool: "cold_2_write" } });
  expect(disabled.body).toMatchObject({ error: "tool_disabled" });
});

test("catalog - a change another process makes to one of the role's groups, or to a policy, is seen on the next request of a process holding only those groups", async () => {
  const cold = api(await testToolgate({ table: writer.db.table }));
  expect(namesOf((await cold("GET", `/agents/${agent.id}/tools`, { token: agent.token })).body)).toEqual(["cold_1_read", "cold_1_write", "cold_2_read"]);
  try {
    expect((await admin("PUT", `/groups/${groupId(1)}`, { body: { description: "Group 1, grown.", tools: [...toolsOf(1), tool("cold_1_extra")] } })).status).toBe(200);
    expect((await admin("POST", "/tools/cold_2_write/enable")).status).toBe(200);
    expect(namesOf((await cold("GET", `/agents/${agent.id}/tools`, { token: agent.token })).body)).toEqual(["cold_1_extra", "cold_1_read", "cold_1_write", "cold_2_read", "cold_2_write"]);
    expect((await admin("DELETE", `/groups/${groupId(2)}`)).status).toBe(204);
    expect(namesOf((await cold("GET", `/agents/${agent.id}/tools`, { token: agent.token })).body)).toEqual(["cold_1_extra", "cold_1_read", "cold_1_write"]);
  } finally {
    await admin("PUT", `/groups/${groupId(1)}`, { body: { description: "Group 1.", tools: toolsOf(1) } });
    await admin("PUT", `/groups/${groupId(2)}`, { body: { description: "Group 2.", tools: toolsOf(2) } });
    await admin("POST", "/tools/cold_2_write/disable");
  }
});
