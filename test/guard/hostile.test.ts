import { afterAll, beforeAll, expect, test } from "vitest";
import { handleModuleEvent } from "@toolgate/functions/event/modules";
import { agentOn, callTool, expectRefused, guarded, httpGroup, policyTool, readCall, unique, withinOneMinuteWindow } from "./helpers";
import type { Guarded } from "./helpers";
import { api, tool } from "../support/toolgate";
import { moduleEvent, secondInstance } from "../integration/helpers";

let g: Guarded;

beforeAll(async () => {
  g = await guarded();
});

afterAll(async () => {
  await g?.close();
});

const DEEP = 5_000;
/** JSON text of arrays nested `levels` deep: [[[...]]]. */
const deepText = (levels: number) => "[".repeat(levels) + "]".repeat(levels);

/** How many objects and arrays deep a JSON value nests (iterative, like the check it tests). */
function depthOf(value: unknown): number {
  let deepest = 0;
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length > 0) {
    const [inner, depth] = pending.pop()!;
    if (inner === null || typeof inner !== "object") continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(inner)) pending.push([child, depth + 1]);
  }
  return deepest;
}

/** A parameters schema of `levels` object schemas, each the only property of the one above; the innermost has `properties: {}` when asked. */
function nestedSchema(levels: number, innermostProperties: boolean): Record<string, unknown> {
  let schema: Record<string, unknown> = innermostProperties ? { type: "object", properties: {} } : { type: "object" };
  for (let i = 1; i < levels; i++) schema = { type: "object", properties: { [`level${levels - i}`]: schema } };
  return schema;
}

test("hostile input - call arguments nested 5,000 deep are 400 json_too_deep with a callId, recorded as refused; the executor never runs", async () => {
  const name = unique("tool");
  const group = await httpGroup(g.request, g.executor, [policyTool(name)]);
  const caller = await agentOn(g.request, [group]);
  const response = await g.request("POST", `/agents/${caller.agent.id}/calls`, {
    token: caller.token,
    rawBody: `{"tool":${JSON.stringify(name)},"arguments":{"data":${deepText(DEEP)}}}`,
  });
  const record = await expectRefused(g.request, caller.agent.id, response, 400, "json_too_deep", true);
  expect(record).toMatchObject({ tool: name, error: { code: "json_too_deep", message: expect.any(String) } });
  expect(g.executor.requestsFor(name)).toHaveLength(0);
  expect((await callTool(g.request, caller, name, { data: [[1]] })).status, "the agent keeps working").toBe(200);
});

test("hostile input - a group whose tool parameters nest 5,000 deep is 400 json_too_deep and nothing is stored", async () => {
  const id = unique("grp");
  const name = unique("tool");
  const definition = JSON.stringify(tool(name)).replace('"properties":{}', `"properties":{"x":{"type":"array","default":${deepText(DEEP)}}}`);
  expect(definition).toContain(deepText(10));
  const response = await g.request("PUT", `/groups/${id}`, { rawBody: `{"description":"Deep.","tools":[${definition}]}` });
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.body.error).toBe("json_too_deep");
  expect(response.body.message).toEqual(expect.any(String));
  expect((await g.request("GET", `/groups/${id}`)).status).toBe(404);
  expect((await g.request("GET", `/tools/${name}`)).status).toBe(404);
});

test("hostile input - a client result nested 5,000 deep is 400 json_too_deep and the call still awaits its result", async () => {
  const caller = await agentOn(g.request, ["workspace"]);
  const call = await callTool(g.request, caller, "write_file", { path: "a.txt", content: "x" });
  expect(call.status, JSON.stringify(call.body)).toBe(202);
  const path = `/agents/${caller.agent.id}/calls/${call.body.callId}/result`;

  const deep = await g.request("POST", path, { token: caller.token, rawBody: `{"content":"ok","metadata":{"tree":${deepText(DEEP)}}}` });
  expect(deep.status, JSON.stringify(deep.body)).toBe(400);
  expect(deep.body.error).toBe("json_too_deep");
  expect((await readCall(g.request, caller.agent.id, call.body.callId)).status).toBe("authorized");

  const fine = await g.request("POST", path, { token: caller.token, body: { content: "wrote 1 byte" } });
  expect(fine.status, JSON.stringify(fine.body)).toBe(200);
  expect((await readCall(g.request, caller.agent.id, call.body.callId)).status).toBe("completed");
});

test("hostile input - a module event whose tools nest 5,000 deep is rejected with json_too_deep and GET /modules/:name says rejected", async () => {
  const module = unique("mod");
  const deepTool = tool(unique("mod_tool"), "A deep tool.", { type: "object", properties: { x: { type: "array", default: JSON.parse(deepText(DEEP)) } } });
  const outcome = await handleModuleEvent(g.toolgate, moduleEvent("module.loaded", { module, version: 1, description: "A deep module.", tools: [deepTool] }));
  expect(outcome).toMatchObject({ outcome: "rejected", module, version: 1, reason: { error: "json_too_deep" } });

  const state = await g.request("GET", `/modules/${module}`);
  expect(state.status, JSON.stringify(state.body)).toBe(200);
  expect(state.body).toMatchObject({ module, version: 1, status: "rejected", reason: { error: "json_too_deep" } });
  expect((await g.request("GET", `/groups/${module}`)).status).toBe(404);
});

test("hostile input - a body exactly 64 levels deep is accepted: a tool whose schema nests 30 levels registers and can be called; 65 levels is refused", async () => {
  const name = unique("nested");
  const group = unique("grp");
  const atLimit = { description: "Nested schemas.", executor: { type: "http", url: `${g.executor.url}/run` }, tools: [policyTool(name, undefined, nestedSchema(30, true))] };
  expect(depthOf(atLimit), "the body nests exactly 64 levels").toBe(64);
  const put = await g.request("PUT", `/groups/${group}`, { body: atLimit });
  expect(put.status, JSON.stringify(put.body)).toBe(201);
  expect((await g.request("GET", `/tools/${name}`)).body.definition.function.parameters).toEqual(nestedSchema(30, true));

  const overLimit = { ...atLimit, tools: [policyTool(unique("nested"), undefined, nestedSchema(31, false))] };
  expect(depthOf(overLimit)).toBe(65);
  const refused = await g.request("PUT", `/groups/${unique("grp")}`, { body: overLimit });
  expect(refused.status, JSON.stringify(refused.body)).toBe(400);
  expect(refused.body.error).toBe("json_too_deep");

  const caller = await agentOn(g.request, [group]);
  let args: Record<string, unknown> = { tail: JSON.parse(deepText(33)) };
  for (let i = 29; i >= 1; i--) args = { [`level${i}`]: args };
  const body = { tool: name, arguments: args };
  expect(depthOf(body), "the call body nests exactly 64 levels").toBe(64);
  const called = await g.request("POST", `/agents/${caller.agent.id}/calls`, { token: caller.token, body });
  expect(called.status, JSON.stringify(called.body)).toBe(200);
  expect(g.executor.requestsFor(name)[0]!.body.arguments).toEqual(args);
  expect((await readCall(g.request, caller.agent.id, called.body.callId)).status).toBe("completed");
});

test("hostile input - tools named __proto__, constructor and toString are rate limited like any other, and the agent keeps working, also after a restart", async () => {
  const hostile = ["__proto__", "constructor", "toString"];
  const other = unique("plain");
  const group = await httpGroup(g.request, g.executor, [...hostile.map((name) => policyTool(name, { rateLimit: { perMinute: 2 } })), policyTool(other)]);
  const caller = await agentOn(g.request, [group]);

  const listed = await g.request("GET", `/agents/${caller.agent.id}/tools`, { token: caller.token });
  expect(listed.status, JSON.stringify(listed.body)).toBe(200);
  expect(listed.body.tools.map((t: any) => t.function.name).sort()).toEqual([...hostile, other].sort());

  await withinOneMinuteWindow(15);
  for (const name of hostile) {
    const shown = await g.request("GET", `/tools/${name}`);
    expect(shown.status, JSON.stringify(shown.body)).toBe(200);
    expect(shown.body).toMatchObject({ name, group, policy: { rateLimit: { perMinute: 2 } } });
    for (let n = 1; n <= 2; n++) {
      const ran = await callTool(g.request, caller, name, { n });
      expect(ran.status, `${name} call ${n}: ${JSON.stringify(ran.body)}`).toBe(200);
    }
    const limited = await callTool(g.request, caller, name, { n: 3 });
    await expectRefused(g.request, caller.agent.id, limited, 429, "rate_limited", true);
    expect(limited.body.toolName).toBe(name);
  }
  for (const name of hostile) expect(g.executor.requestsFor(name), name).toHaveLength(2);
  for (let n = 1; n <= 3; n++) {
    const ran = await callTool(g.request, caller, other, { n });
    expect(ran.status, `${other} call ${n}: ${JSON.stringify(ran.body)}`).toBe(200);
  }
  const history = await g.request("GET", `/agents/${caller.agent.id}/calls?limit=100`);
  expect(history.status, JSON.stringify(history.body)).toBe(200);

  const restarted = api(await secondInstance(g.toolgate));
  const afterRestart = await callTool(restarted, caller, other, { n: 4 });
  expect(afterRestart.status, JSON.stringify(afterRestart.body)).toBe(200);
  for (const name of hostile) {
    const limited = await callTool(restarted, caller, name, { n: 4 });
    expect(limited.status, `${name} after the restart: ${JSON.stringify(limited.body)}`).toBe(429);
    expect(limited.body.error).toBe("rate_limited");
  }
  expect((await callTool(restarted, caller, other, { n: 5 })).status).toBe(200);
  expect((await restarted("GET", `/agents/${caller.agent.id}/tools`, { token: caller.token })).status).toBe(200);

  for (const name of hostile) {
    const disabled = await restarted("POST", `/tools/${name}/disable`);
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
    expect(disabled.body).toMatchObject({ name, policy: { disabled: true } });
    expect((await callTool(restarted, caller, name, { n: 5 })).body.error).toBe("tool_disabled");
    expect((await restarted("POST", `/tools/${name}/enable`)).status).toBe(200);
    expect((await callTool(g.request, caller, name, { n: 6 })).body.error, "the first process sees the same tool").toBe("rate_limited");
  }
  expect((await callTool(g.request, caller, other, { n: 6 })).status).toBe(200);
}, 60_000);
