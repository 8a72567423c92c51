import { afterAll, beforeAll, expect, test } from "vitest";
import type { Toolgate } from "@toolgate/core/toolgate";
import { api, testToolgate } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { startExecutor } from "../support/executor";
import type { Executor } from "../support/executor";
import { agentOn, callTool, echoReply, httpGroup, policyTool, unique } from "./helpers";

let operations: string[] = [];
let toolgate: Toolgate;
let request: Api;
let executor: Executor;

beforeAll(async () => {
  executor = await startExecutor(echoReply);
  toolgate = await testToolgate({ onRoundTrip: (operation) => operations.push(operation) });
  request = api(toolgate);
});

afterAll(async () => {
  await executor?.close();
});

/** Before the tool runs, a warm call makes three requests together: the guard state's write, the call's start, the check of its cached plan. */
const ADMISSION = ["BatchGetItem", "PutItem", "UpdateItem"];
const admission = (operations: string[]) => [...operations.slice(0, 3)].sort();

test("POST /agents/:id/calls - a warm guarded call to an http executor costs two round trips: three requests made together, then the outcome's write", async () => {
  const name = unique("tool");
  const group = await httpGroup(request, executor, [policyTool(name, { rateLimit: { perMinute: 100, perHour: 1000 } })]);
  const caller = await agentOn(request, [group]);
  expect((await callTool(request, caller, name, { i: 0 })).status).toBe(200);

  for (let i = 1; i <= 3; i++) {
    operations = [];
    const response = await callTool(request, caller, name, { i });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.status).toBe("completed");
    expect(admission(operations), `warm call ${i}`).toEqual(ADMISSION);
    expect(operations.slice(3), `warm call ${i}`).toEqual(["UpdateItem"]);
  }
  expect(executor.requestsFor(name)).toHaveLength(4);
});

test("POST /agents/:id/calls - a warm client-executed call costs one round trip, the admission's three requests", async () => {
  const caller = await agentOn(request, ["workspace"]);
  expect((await callTool(request, caller, "read_file", { path: "a" })).status).toBe(202);
  operations = [];
  expect((await callTool(request, caller, "read_file", { path: "b" })).status).toBe(202);
  expect([...operations].sort()).toEqual(ADMISSION);
});

test("POST /agents/:id/calls - the first call of a cold process costs more, and never a Scan", async () => {
  const name = unique("tool");
  const group = await httpGroup(request, executor, [policyTool(name)]);
  const caller = await agentOn(request, [group]);
  const cold: string[] = [];
  const other = await testToolgate({ table: toolgate.db.table, onRoundTrip: (operation) => cold.push(operation) });
  cold.length = 0;
  expect((await callTool(api(other), caller, name, { first: true })).status).toBe(200);
  expect(cold.length).toBeGreaterThan(2);
  expect(cold).not.toContain("Scan");
  cold.length = 0;
  expect((await callTool(api(other), caller, name, { second: true })).status).toBe(200);
  expect(admission(cold)).toEqual(ADMISSION);
  expect(cold.slice(3)).toEqual(["UpdateItem"]);
});
