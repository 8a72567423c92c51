import { expect, test } from "vitest";
import { api, testToolgate, tool } from "../support/toolgate";

test("GET /agents/:id/tools - a warm process answers with at most 2 DynamoDB round trips", async () => {
  const operations: string[] = [];
  const toolgate = await testToolgate({ onRoundTrip: (operation) => operations.push(operation) });
  const request = api(toolgate);
  await request("PUT", "/groups/search", { body: { description: "Code search", tools: [tool("search_code")] } });
  const role = await request("POST", "/roles", { body: { name: "searcher", toolGroups: ["search"] } });
  const { body } = await request("POST", "/agents", { body: { roleId: role.body.id } });
  const asAgent = { token: body.token as string };
  await request("GET", `/agents/${body.agent.id}/tools`, asAgent);

  operations.length = 0;
  const warm = await request("GET", `/agents/${body.agent.id}/tools`, asAgent);
  expect(warm.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(["search_code"]);
  expect(operations).toEqual(["GetItem", "BatchGetItem"]);

  operations.length = 0;
  await request("GET", `/agents/${body.agent.id}/tools`, {});
  expect(operations.length).toBeLessThanOrEqual(2);
});

test("GET /groups - a warm process revalidates the catalog with one GetItem and no Scan", async () => {
  const operations: string[] = [];
  const toolgate = await testToolgate({ onRoundTrip: (operation) => operations.push(operation) });
  const request = api(toolgate);
  await request("GET", "/groups");
  operations.length = 0;
  await request("GET", "/groups");
  expect(operations).toEqual(["GetItem"]);
});

test("catalog cache - a write through another process is seen on the next request, with a Query and no Scan", async () => {
  const operations: string[] = [];
  const first = await testToolgate({ onRoundTrip: (operation) => operations.push(operation) });
  const second = await testToolgate({ table: first.db.table });
  await api(first)("GET", "/groups");
  await api(second)("PUT", "/groups/late", { body: { description: "Registered elsewhere", tools: [tool("late_tool")] } });
  operations.length = 0;
  const seen = await api(first)("GET", "/groups/late");
  expect(seen.status).toBe(200);
  expect(operations).toContain("Query");
  expect(operations).not.toContain("Scan");
});
