import { afterAll, beforeAll, expect, inject, test, vi } from "vitest";
import { Toolgate } from "@toolgate/core/toolgate";
import type { ToolgateOptions } from "@toolgate/core/toolgate";
import { handleModuleEvent } from "@toolgate/functions/event/modules";
import { ADMIN_TOKEN, api, SIGNING_KEY, testToolgate, tool } from "../support/toolgate";
import type { Api, ApiResponse } from "../support/toolgate";
import { createRole, moduleEvent, putGroup, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;
const quiet = vi.spyOn(console, "log").mockImplementation(() => {});

beforeAll(async () => {
  toolgate = await testToolgate();
  request = api(toolgate);
});

afterAll(() => quiet.mockRestore());

/** Several processes on one table, as concurrent Lambda instances are: each batches its own writes, they race each other. */
async function processes(count: number, overrides: Partial<ToolgateOptions> = {}): Promise<Toolgate[]> {
  const first = await testToolgate(overrides);
  const others = Array.from(
    { length: count - 1 },
    () => new Toolgate({ table: first.db.table, endpoint: inject("dynamoEndpoint"), adminToken: ADMIN_TOKEN, signingKey: SIGNING_KEY, ...overrides }),
  );
  await Promise.all(others.map((other) => other.ready()));
  return [first, ...others];
}

const statuses = (responses: ApiResponse[]) =>
  responses.reduce<Record<number, number>>((counts, { status }) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});

/**
 * Sends each request, then sends again the ones toolgate answered 503 busy (each with Retry-After), as a client would,
 * until every one is stored. Some writer wins every round, so each round must store at least one more: a round that
 * stores none fails the test rather than looping.
 */
async function sendUntilStored(count: number, send: (index: number) => Promise<ApiResponse>): Promise<{ first: ApiResponse[]; last: ApiResponse[] }> {
  const first = await Promise.all(Array.from({ length: count }, (_, index) => send(index)));
  const last = [...first];
  for (let busy = indexesOf(last, 503); busy.length; ) {
    for (const index of busy) {
      expect(last[index]!.body.error).toBe("busy");
      expect(Number(last[index]!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
    const again = await Promise.all(busy.map(send));
    busy.forEach((index, n) => (last[index] = again[n]!));
    const still = indexesOf(last, 503);
    expect(still.length, "every round stores at least one").toBeLessThan(busy.length);
    busy = still;
  }
  return { first, last };
}

const indexesOf = (responses: ApiResponse[], status: number) => responses.flatMap((response, index) => (response.status === status ? [index] : []));

/** Delivers a module event again while its handler fails busy, as EventBridge redelivers a failed event. */
async function deliverUntilApplied(tg: Toolgate, event: ReturnType<typeof moduleEvent>) {
  for (;;) {
    try {
      return await handleModuleEvent(tg, event);
    } catch (error) {
      if ((error as { code?: string }).code !== "busy") throw error;
    }
  }
}

const groupBody = (toolName = unique("tool")) => ({ description: "A group written under contention.", tools: [tool(toolName)] });

const loaded = (module: string, version: number) => ({
  module,
  version,
  description: `${module} v${version}`,
  tools: [tool(`${module}_v${version}`)],
});

const deliver = (tg: Toolgate, detailType: string, detail: Record<string, unknown>, id?: string) =>
  handleModuleEvent(tg, moduleEvent(detailType, detail, id));

test("PUT /groups/:id - 50 different groups written at once are all stored: 201 each, never 500", async () => {
  const ids = Array.from({ length: 50 }, () => unique("burst"));
  const responses = await Promise.all(ids.map((id) => request("PUT", `/groups/${id}`, { body: groupBody() })));
  expect(statuses(responses)).toEqual({ 201: 50 });
  const listed = new Set(((await request("GET", "/groups")).body.groups as Array<{ id: string }>).map((group) => group.id));
  for (const id of ids) expect(listed.has(id), id).toBe(true);
});

test("PUT /groups/:id - 50 different groups written at once through 10 processes are all stored: 201, or 503 busy and stored when sent again, never lost", async () => {
  const requests = (await processes(10)).map(api);
  const ids = Array.from({ length: 50 }, () => unique("spread"));
  const { first, last } = await sendUntilStored(ids.length, (index) => requests[index % requests.length]!("PUT", `/groups/${ids[index]}`, { body: groupBody() }));
  expect(Object.keys(statuses(first)).filter((status) => status !== "201" && status !== "503")).toEqual([]);
  expect(statuses(last)).toEqual({ 201: 50 });
  const listed = new Set(((await requests[0]!("GET", "/groups")).body.groups as Array<{ id: string }>).map((group) => group.id));
  for (const id of ids) expect(listed.has(id), id).toBe(true);
});

test("catalog writes - deletes, executor bindings, policies and disable/enable racing each other all land", async () => {
  const doomed = Array.from({ length: 8 }, () => unique("doomed"));
  const bound = Array.from({ length: 8 }, () => unique("bound"));
  const tuned = Array.from({ length: 8 }, () => unique("tuned_tool"));
  const switched = Array.from({ length: 8 }, () => unique("switched_tool"));
  for (const id of [...doomed, ...bound]) await putGroup(request, id, groupBody());
  await putGroup(request, unique("policies"), { description: "Tools whose policy changes.", tools: [...tuned, ...switched].map((name) => tool(name)) });

  const responses = await Promise.all([
    ...doomed.map((id) => request("DELETE", `/groups/${id}`)),
    ...bound.map((id) => request("PUT", `/groups/${id}/executor`, { body: { type: "http", url: "http://127.0.0.1:9/run" } })),
    ...tuned.map((name) => request("PUT", `/tools/${name}/policy`, { body: { rateLimit: { perMinute: 7 } } })),
    ...switched.map((name) => request("POST", `/tools/${name}/disable`)),
  ]);
  expect(statuses(responses)).toEqual({ 200: 24, 204: 8 });

  for (const id of doomed) expect((await request("GET", `/groups/${id}`)).status, id).toBe(404);
  for (const id of bound) expect((await request("GET", `/groups/${id}`)).body.executor, id).toEqual({ type: "http", url: "http://127.0.0.1:9/run" });
  for (const name of tuned) expect((await request("GET", `/tools/${name}`)).body.policy.rateLimit, name).toEqual({ perMinute: 7 });
  for (const name of switched) expect((await request("GET", `/tools/${name}`)).body.policy.disabled, name).toBe(true);
});

test("PUT /groups/:id - when the contention deadline passes, the loser gets 503 busy with Retry-After and nothing half-written", async () => {
  const requests = (await processes(10, { contentionDeadlineMs: 0 })).map(api);
  const hurried = requests[0]!;
  const ids = Array.from({ length: 40 }, () => unique("hurried"));
  const responses = await Promise.all(ids.map((id, index) => requests[index % requests.length]!("PUT", `/groups/${id}`, { body: groupBody() })));
  const counts = statuses(responses);
  expect(Object.keys(counts).sort()).toEqual(["201", "503"]);
  for (const [index, response] of responses.entries()) {
    const stored = (await hurried("GET", `/groups/${ids[index]}`)).status;
    if (response.status === 201) expect(stored).toBe(200);
    else {
      expect(response.body).toMatchObject({ error: "busy", message: expect.stringContaining("retry"), retryAfterSeconds: 1 });
      expect(response.headers.get("retry-after")).toBe("1");
      expect(stored).toBe(404);
    }
  }
});

test("module.loaded - ten modules loaded at once are all registered, none reported stale", async () => {
  const modules = Array.from({ length: 10 }, () => unique("fleet"));
  const outcomes = await Promise.all(modules.map((module) => deliver(toolgate, "module.loaded", loaded(module, 1))));
  expect(outcomes.map((outcome) => outcome.outcome)).toEqual(Array(10).fill("loaded"));
  for (const module of modules) {
    expect((await request("GET", `/modules/${module}`)).body).toMatchObject({ status: "loaded", version: 1 });
    expect((await request("GET", `/groups/${module}`)).status).toBe(200);
  }
});

test("module events - 10 modules loaded at once through 10 processes are all registered", async () => {
  const instances = await processes(10);
  const modules = Array.from({ length: 10 }, () => unique("lambda"));
  // A delivery that loses races until its deadline fails busy, and EventBridge delivers it again.
  const outcomes = await Promise.all(modules.map((module, index) => deliverUntilApplied(instances[index]!, moduleEvent("module.loaded", loaded(module, 1)))));
  expect(outcomes.map((outcome) => outcome.outcome)).toEqual(Array(10).fill("loaded"));
  for (const module of modules) expect((await api(instances[0]!)("GET", `/modules/${module}`)).body).toMatchObject({ status: "loaded", version: 1 });
});

test("module events - 100 events for 20 modules delivered concurrently in order settle every module on its newest version", async () => {
  const modules = Array.from({ length: 20 }, () => unique("wave"));
  const events = [1, 2, 3, 4, 5].flatMap((version) => modules.map((module) => loaded(module, version)));
  // A delivery that loses races until its deadline fails busy, and EventBridge delivers it again (CI, on a loaded machine).
  const outcomes = await Promise.all(events.map((detail) => deliverUntilApplied(toolgate, moduleEvent("module.loaded", detail))));
  expect(outcomes.every((outcome) => outcome.outcome === "loaded" || outcome.outcome === "stale")).toBe(true);
  for (const module of modules) {
    expect((await request("GET", `/modules/${module}`)).body, module).toMatchObject({ status: "loaded", version: 5 });
    const group = (await request("GET", `/groups/${module}`)).body;
    expect(group.tools.map((definition: { function: { name: string } }) => definition.function.name)).toEqual([`${module}_v5`]);
  }
});

test("module events - an event that cannot be applied before the deadline fails the handler, and its redelivery applies it", async () => {
  const instances = await processes(12, { contentionDeadlineMs: 0 });
  const impatient = instances[0]!;
  const modules = Array.from({ length: 36 }, () => unique("retried"));
  const events = modules.map((module) => moduleEvent("module.loaded", loaded(module, 1)));
  const first = await Promise.allSettled(events.map((event, index) => handleModuleEvent(instances[index % instances.length]!, event)));
  const failed = first.flatMap((result, index) => (result.status === "rejected" ? [index] : []));
  expect(failed.length, "some deliveries lose the race and must fail rather than be dropped").toBeGreaterThan(0);
  for (const result of first) if (result.status === "fulfilled") expect(result.value.outcome).toBe("loaded");
  for (const index of failed) expect(((first[index] as PromiseRejectedResult).reason as { code?: string }).code).toBe("busy");
  for (const index of failed) expect((await handleModuleEvent(impatient, events[index]!)).outcome).toBe("loaded");
  const check = api(impatient);
  for (const module of modules) expect((await check("GET", `/modules/${module}`)).body).toMatchObject({ status: "loaded", version: 1 });
});

test("module events - v1 rejections racing a v2 load of the same module, through three processes busy with other catalog writes, always end with v2 loaded", async () => {
  const instances = await processes(3);
  const check = api(instances[0]!);
  for (let round = 0; round < 20; round++) {
    const module = unique("racer");
    const invalid = { module, version: 1, description: "broken", tools: [{ type: "function", function: { name: "has space" } }] };
    const churn = instances.flatMap((instance) => [1, 2, 3].map(() => api(instance)("PUT", `/groups/${unique("churn")}`, { body: groupBody() })));
    await Promise.all([
      ...[0, 1, 2, 0, 1, 2].map((index) => deliverUntilApplied(instances[index]!, moduleEvent("module.loaded", invalid))),
      deliverUntilApplied(instances[round % 3]!, moduleEvent("module.loaded", loaded(module, 2))),
      ...churn,
    ]);
    expect((await check("GET", `/modules/${module}`)).body, `round ${round}`).toMatchObject({ status: "loaded", version: 2 });
    expect((await check("GET", `/groups/${module}`)).body.description).toBe(`${module} v2`);
  }
});

test("PATCH /roles/:id - 30 updates without If-Match at once all apply: 200 each, never a 412 for a version nobody sent", async () => {
  const role = await createRole(request, { name: unique("crowded"), toolGroups: ["artifact"] });
  const responses = await Promise.all(
    Array.from({ length: 30 }, (_, index) => request("PATCH", `/roles/${role.id}`, { body: { rolePrompt: `prompt ${index}` } })),
  );
  expect(statuses(responses)).toEqual({ 200: 30 });
  const versions = responses.map((response) => response.body.version).sort((a, b) => a - b);
  expect(versions).toEqual(Array.from({ length: 30 }, (_, index) => role.version + index + 1));
  expect((await request("GET", `/roles/${role.id}`)).body.version).toBe(role.version + 30);
});

test("PATCH /roles/:id - with If-Match, exactly one of many writers of one version wins; the others get 412 naming the version they sent", async () => {
  const role = await createRole(request, { name: unique("contested"), toolGroups: ["artifact"] });
  const responses = await Promise.all(
    Array.from({ length: 10 }, (_, index) =>
      request("PATCH", `/roles/${role.id}`, { body: { rolePrompt: `mine ${index}` }, headers: { "if-match": `"${role.version}"` } }),
    ),
  );
  expect(statuses(responses)).toEqual({ 200: 1, 412: 9 });
  for (const response of responses.filter(({ status }) => status === 412)) {
    expect(response.body).toMatchObject({ error: "version_conflict", currentVersion: role.version + 1 });
    expect(response.body.message).toContain(`you had version ${role.version}`);
  }
});
