import { afterAll, beforeAll, expect, test } from "vitest";
import { agentOn, callTool, expectRefused, guarded, httpGroup, policyTool, unique, withinOneMinuteWindow } from "./helpers";
import type { Guarded } from "./helpers";
import type { ApiResponse } from "../support/toolgate";

let g: Guarded;

beforeAll(async () => {
  g = await guarded();
});

afterAll(async () => {
  await g?.close();
});

/** A fresh http group with one tool under the given policy, and an agent whose role has the group. */
async function setup(policy?: Record<string, unknown>) {
  const name = unique("tool");
  const group = await httpGroup(g.request, g.executor, [policyTool(name, policy)]);
  const caller = await agentOn(g.request, [group]);
  return { name, group, caller };
}

/** Words of the libraries underneath that mean nothing to the person or model reading the answer. */
const JARGON = /expected record|discriminator|received NaN|Invalid input|received undefined|must NOT|Too small|Too big|Unrecognized key/i;

function expectPlainEnglish(response: ApiResponse) {
  const { message, details } = response.body ?? {};
  expect(message, JSON.stringify(response.body)).toEqual(expect.any(String));
  expect(message, "the message").not.toMatch(JARGON);
  expect(JSON.stringify(details ?? null), "the details").not.toMatch(JARGON);
  expect(JSON.stringify(response.body)).not.toMatch(/NaN/);
}

test("429 rate_limited - the answer carries a Retry-After header in whole seconds, equal to retryAfterSeconds", async () => {
  const { name, caller } = await setup({ rateLimit: { perMinute: 1 } });
  await withinOneMinuteWindow();
  expect((await callTool(g.request, caller, name, { n: 1 })).status).toBe(200);
  const refused = await callTool(g.request, caller, name, { n: 2 });
  await expectRefused(g.request, caller.agent.id, refused, 429, "rate_limited", true);
  const header = refused.headers.get("retry-after");
  expect(header, "Retry-After is set").toEqual(expect.stringMatching(/^\d+$/));
  expect(Number(header)).toBeGreaterThanOrEqual(1);
  expect(Number(header)).toBe(refused.body.retryAfterSeconds);

  const hourly = await setup({ rateLimit: { perHour: 1 } });
  expect((await callTool(g.request, hourly.caller, hourly.name, { n: 1 })).status).toBe(200);
  const refusedHourly = await callTool(g.request, hourly.caller, hourly.name, { n: 2 });
  expect(refusedHourly.status).toBe(429);
  expect(refusedHourly.headers.get("retry-after")).toBe(String(refusedHourly.body.retryAfterSeconds));
  expect(refusedHourly.body.retryAfterSeconds).toBeGreaterThanOrEqual(1);
});

test("doom loop - by default the third identical call is refused; the message says 2 identical calls just ran and the limit, and a fourth attempt says the same", async () => {
  const { name, caller } = await setup();
  const args = { path: "src/index.ts" };
  expect((await callTool(g.request, caller, name, args)).status).toBe(200);
  expect((await callTool(g.request, caller, name, args)).status).toBe(200);

  const third = await callTool(g.request, caller, name, args);
  await expectRefused(g.request, caller.agent.id, third, 429, "doom_loop_detected", true);
  const message = (third.body.message as string).replaceAll(name, "<tool>");
  expect(message).toMatch(/\b2 times in a row\b/);
  expect(message, "names the limit").toMatch(/at most 2 identical calls/);
  expect(message).not.toMatch(/\b[34]\b|call number|third|fourth/i);

  const fourth = await callTool(g.request, caller, name, args);
  await expectRefused(g.request, caller.agent.id, fourth, 429, "doom_loop_detected", true);
  expect((fourth.body.message as string).replaceAll(name, "<tool>"), "a refused attempt does not count as a run").toBe(message);
  expect(g.executor.requestsFor(name)).toHaveLength(2);
});

test("doom loop - the built-in get_context_status can be polled 10 times in a row with the same arguments", async () => {
  const caller = await agentOn(g.request, ["context"]);
  for (let i = 1; i <= 10; i++) {
    const response = await callTool(g.request, caller, "get_context_status", {});
    expect(response.status, `poll ${i}: ${JSON.stringify(response.body)}`).toBe(202);
    expect(response.body.status).toBe("authorized");
  }
});

test("doom loop - repeatLimit 5 allows five identical calls and refuses the sixth", async () => {
  const { name, caller } = await setup({ repeatLimit: 5 });
  for (let i = 1; i <= 5; i++) expect((await callTool(g.request, caller, name, { same: true })).status, `call ${i}`).toBe(200);
  const sixth = await callTool(g.request, caller, name, { same: true });
  await expectRefused(g.request, caller.agent.id, sixth, 429, "doom_loop_detected", true);
  expect(sixth.body.message).toMatch(/\b5 times in a row\b/);
  expect(g.executor.requestsFor(name)).toHaveLength(5);
});

test("doom loop - repeatLimit 0 never refuses identical calls", async () => {
  const { name, caller } = await setup({ repeatLimit: 0 });
  for (let i = 1; i <= 12; i++) expect((await callTool(g.request, caller, name, { same: true })).status, `call ${i}`).toBe(200);
  expect(g.executor.requestsFor(name)).toHaveLength(12);
});

test("PUT /tools/:name/policy - answers change: replaced and says so; a later PUT drops the rate limit an earlier one set", async () => {
  const { name, caller } = await setup();
  const first = await g.request("PUT", `/tools/${name}/policy`, { body: { rateLimit: { perMinute: 2 } } });
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  expect(first.body).toMatchObject({ name, change: "replaced", message: expect.stringMatching(/replace/i), policy: { rateLimit: { perMinute: 2 } } });

  const second = await g.request("PUT", `/tools/${name}/policy`, { body: { dangerous: true } });
  expect(second.status, JSON.stringify(second.body)).toBe(200);
  expect(second.body).toMatchObject({ change: "replaced", message: expect.stringMatching(/replace/i) });
  expect(second.body.override.policy).toEqual({ dangerous: true });

  const shown = await g.request("GET", `/tools/${name}`);
  expect(shown.status).toBe(200);
  expect(shown.body.policy.dangerous).toBe(true);
  expect(shown.body.policy).not.toHaveProperty("rateLimit");
  expect((await callTool(g.request, caller, name, {})).body.status).toBe("awaiting_confirmation");
});

test("PATCH /tools/:name/policy - answers change: merged; fields accumulate, null removes one, an unknown field is 400 invalid_policy", async () => {
  const { name, caller } = await setup();
  const first = await g.request("PATCH", `/tools/${name}/policy`, { body: { rateLimit: { perMinute: 2 } } });
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  expect(first.body).toMatchObject({ change: "merged", message: expect.any(String) });

  const second = await g.request("PATCH", `/tools/${name}/policy`, { body: { dangerous: true } });
  expect(second.status, JSON.stringify(second.body)).toBe(200);
  expect(second.body.change).toBe("merged");
  const merged = await g.request("GET", `/tools/${name}`);
  expect(merged.body.policy).toMatchObject({ rateLimit: { perMinute: 2 }, dangerous: true });

  const removed = await g.request("PATCH", `/tools/${name}/policy`, { body: { rateLimit: null } });
  expect(removed.status, JSON.stringify(removed.body)).toBe(200);
  const after = await g.request("GET", `/tools/${name}`);
  expect(after.body.policy).not.toHaveProperty("rateLimit");
  expect(after.body.policy.dangerous).toBe(true);

  const unknown = await g.request("PATCH", `/tools/${name}/policy`, { body: { dangrous: true } });
  expect(unknown.status, JSON.stringify(unknown.body)).toBe(400);
  expect(unknown.body.error).toBe("invalid_policy");
  expect(unknown.body.message).toContain("dangrous");
  expectPlainEnglish(unknown);
  expect((await g.request("GET", `/tools/${name}`)).body.policy).toMatchObject({ dangerous: true });

  await withinOneMinuteWindow();
  for (let i = 1; i <= 3; i++) expect((await callTool(g.request, caller, name, { n: i })).status, `call ${i}: no rate limit left`).toBe(202);
});

test("validation messages - plain English through HTTP, never the wording of the validation library", async () => {
  const { caller } = await setup();

  const stringArguments = await g.request("POST", `/agents/${caller.agent.id}/calls`, {
    token: caller.token,
    rawBody: '{"tool":"x","arguments":"{\\"a\\":1}"}',
  });
  expect(stringArguments.status, JSON.stringify(stringArguments.body)).toBe(400);
  expect(stringArguments.body.message).toMatch(/object/);
  expect(stringArguments.body.message).toMatch(/string/);
  expectPlainEnglish(stringArguments);

  const badLimit = await g.request("GET", `/agents/${caller.agent.id}/calls?limit=abc`);
  expect(badLimit.status, JSON.stringify(badLimit.body)).toBe(400);
  expect(badLimit.body.message).toMatch(/limit/);
  expectPlainEnglish(badLimit);

  const ftp = await g.request("PUT", `/groups/${unique("grp")}`, {
    body: { description: "An ftp group.", tools: [policyTool(unique("t"))], executor: { type: "ftp", url: "ftp://files.example.com" } },
  });
  expect(ftp.status, JSON.stringify(ftp.body)).toBe(400);
  expect(ftp.body.error).toBe("invalid_group_def");
  expect(ftp.body.message).toMatch(/http/);
  expect(ftp.body.message).toMatch(/client/);
  expectPlainEnglish(ftp);

  const spaced = await g.request("PUT", `/groups/${unique("grp")}`, { body: { description: "A bad tool name.", tools: [policyTool("bad name")] } });
  expect(spaced.status, JSON.stringify(spaced.body)).toBe(400);
  expect(spaced.body.error).toBe("invalid_group_def");
  expect(spaced.body.message).toMatch(/letters, digits/);
  expectPlainEnglish(spaced);

  const groupsAsText = await g.request("POST", "/roles", { body: { name: unique("role"), rolePrompt: "Work.", toolGroups: "x" } });
  expect(groupsAsText.status, JSON.stringify(groupsAsText.body)).toBe(400);
  expect(groupsAsText.body.message).toMatch(/toolGroups/);
  expect(groupsAsText.body.message).toMatch(/list/);
  expectPlainEnglish(groupsAsText);
});

test("POST /roles - without toolGroups is 201 with notice default_all_tool_groups", async () => {
  const response = await g.request("POST", "/roles", { body: { name: unique("role"), rolePrompt: "Do anything." } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  expect(response.body).toMatchObject({ notice: "default_all_tool_groups", message: expect.any(String), toolGroups: null });
});
