import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PutEventsCommand } from "@aws-sdk/client-eventbridge";
import type { PutEventsRequestEntry } from "@aws-sdk/client-eventbridge";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { localEvents } from "../support/events";
import { startLocalProcess } from "../support/local-process";
import type { LocalProcess } from "../support/local-process";

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

const started: LocalProcess[] = [];
const dirs: string[] = [];
const frozen = new Set<number>();

function thaw() {
  for (const pid of frozen) {
    try {
      process.kill(pid, "SIGCONT");
    } catch {
      // already gone
    }
  }
  frozen.clear();
}

async function start(env: Record<string, string> = {}) {
  const dir = await mkdtemp(join(tmpdir(), "toolgate-events-"));
  dirs.push(dir);
  const stack = await startLocalProcess(dir, env);
  started.push(stack);
  return stack;
}

afterAll(async () => {
  thaw();
  await Promise.all(started.map((stack) => stack.stop("SIGTERM")));
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const run = Date.now().toString(36);
const moduleName = (prefix: string, index: number) => `${prefix}_${run}_${index}`;

/** One OpenAI function tool definition, named after the module and version so no two groups share a tool name. */
const toolFor = (module: string, version: number) => ({
  type: "function",
  function: {
    name: `${module}_v${version}`,
    description: `Version ${version} of ${module}'s tool.`,
    parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
  },
});

const loadedEntry = (module: string, version: number): PutEventsRequestEntry => ({
  Source: "toolgate.modules",
  DetailType: "module.loaded",
  Detail: JSON.stringify({
    module,
    version,
    description: `${module} at version ${version}`,
    tools: [toolFor(module, version)],
    executor: { type: "http", url: "http://127.0.0.1:9/x" },
  }),
});

async function putEvents(stack: LocalProcess, entries: PutEventsRequestEntry[]) {
  expect(entries.length).toBeLessThanOrEqual(10);
  const sent = await localEvents(stack).send(new PutEventsCommand({ Entries: entries }));
  expect(sent.FailedEntryCount, JSON.stringify(sent.Entries)).toBe(0);
  expect(sent.Entries).toHaveLength(entries.length);
  return sent;
}

/** Polls GET /modules/:name for every module until each is loaded at the given version; returns the last answers. */
async function allLoaded(stack: LocalProcess, modules: string[], version: number, timeoutMs = 15_000) {
  const until = Date.now() + timeoutMs;
  let last: Record<string, any> = {};
  for (;;) {
    const answers = await Promise.all(modules.map((name) => stack.request("GET", `/modules/${name}`, stack.adminToken)));
    last = Object.fromEntries(modules.map((name, index) => [name, answers[index]!.body]));
    const done = answers.every((answer) => answer.status === 200 && answer.body?.status === "loaded" && answer.body?.version === version);
    if (done || Date.now() > until) return last;
    await sleep(200);
  }
}

describe("module events through the real EventBridge client", () => {
  let stack: LocalProcess;

  beforeAll(async () => {
    stack = await start();
  });

  test("events - one PutEvents with 10 module.loaded entries for 10 modules loads all 10, and GET /groups lists them", async () => {
    const modules = Array.from({ length: 10 }, (_, index) => moduleName("batch", index));
    const sent = await putEvents(stack, modules.map((module) => loadedEntry(module, 1)));
    expect(sent.Entries!.every((entry) => typeof entry.EventId === "string")).toBe(true);

    const startedAt = Date.now();
    const answers = await allLoaded(stack, modules, 1);
    for (const module of modules) {
      expect(answers[module], `${module}: ${JSON.stringify(answers[module])}`).toMatchObject({ module, version: 1, status: "loaded", groupId: module });
    }
    console.log(`10 modules in one PutEvents loaded in ${Date.now() - startedAt} ms`);

    const groups = await stack.request("GET", "/groups", stack.adminToken);
    expect(groups.status).toBe(200);
    const listed = new Map<string, any>(groups.body.groups.map((group: { id: string }) => [group.id, group]));
    for (const module of modules) {
      expect(listed.get(module), `GET /groups lists ${module}`).toMatchObject({ id: module, toolCount: 1, module });
    }
    const one = await stack.request("GET", `/groups/${modules[3]}`, stack.adminToken);
    expect(one.status).toBe(200);
    expect(one.body.tools).toEqual([toolFor(modules[3]!, 1)]);
  }, 30_000);

  test("events - 100 in-order events (20 modules x versions 1..5, 10 PutEvents of 10) leave all 20 loaded at version 5 with the v5 tool", async () => {
    const modules = Array.from({ length: 20 }, (_, index) => moduleName("versions", index));
    const entries = [1, 2, 3, 4, 5].flatMap((version) => modules.map((module) => loadedEntry(module, version)));
    expect(entries).toHaveLength(100);
    for (let offset = 0; offset < entries.length; offset += 10) await putEvents(stack, entries.slice(offset, offset + 10));

    const startedAt = Date.now();
    const answers = await allLoaded(stack, modules, 5, 20_000);
    const wrong = modules.filter((module) => answers[module]?.status !== "loaded" || answers[module]?.version !== 5);
    expect(wrong.map((module) => `${module}: ${JSON.stringify(answers[module])}`), "every module loaded at version 5").toEqual([]);
    console.log(`20 modules x 5 versions settled at v5 in ${Date.now() - startedAt} ms`);

    const groups = await Promise.all(modules.map((module) => stack.request("GET", `/groups/${module}`, stack.adminToken)));
    for (const [index, module] of modules.entries()) {
      expect(groups[index]!.status, `${module}: ${JSON.stringify(groups[index]!.body)}`).toBe(200);
      expect(groups[index]!.body.tools, `${module} carries only its v5 tool`).toEqual([toolFor(module, 5)]);
      expect(groups[index]!.body.description).toBe(`${module} at version 5`);
    }
    const tool = await stack.request("GET", `/tools/${modules[0]}_v5`, stack.adminToken);
    expect(tool.status).toBe(200);
    expect(tool.body).toMatchObject({ name: `${modules[0]}_v5`, group: modules[0] });
    const old = await stack.request("GET", `/tools/${modules[0]}_v4`, stack.adminToken);
    expect(old.status, "an earlier version's tool is gone").toBe(404);
    expect(stack.output(), "no delivery was given up").not.toContain("gave up on event");
  }, 30_000);
});

describe("a hung store through npm start", () => {
  test("events - SIGSTOP on DynamoDB Local: /health 503 and GET /groups 503 store_unavailable within 10 s; SIGCONT: both 200 again", async () => {
    const stack = await start({ TOOLGATE_DYNAMODB_TIMEOUT_MS: "1000" });
    const health = () => fetch(`${stack.url}/health`).then(async (response) => ({ status: response.status, body: (await response.json()) as any, headers: response.headers }));
    const up = await health();
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ ok: true });
    expect((await stack.request("GET", "/groups", stack.adminToken)).status).toBe(200);

    const pid = Number((await readFile(join(stack.dataDir, "dynamodb", "dynamodb-local.pid"), "utf8")).trim());
    expect(pid).toBeGreaterThan(0);
    try {
      frozen.add(pid);
      process.kill(pid, "SIGSTOP");

      const frozenAt = Date.now();
      let down = await health();
      while (down.status !== 503 && Date.now() - frozenAt < 10_000) {
        await sleep(100);
        down = await health();
      }
      const healthMs = Date.now() - frozenAt;
      expect(down.status, JSON.stringify(down.body)).toBe(503);
      expect(down.body).toMatchObject({ ok: false, store: "unavailable" });

      const groupsAt = Date.now();
      const groups = await fetch(`${stack.url}/groups`, { headers: { authorization: `Bearer ${stack.adminToken}` } });
      const groupsMs = Date.now() - groupsAt;
      const body = (await groups.json()) as any;
      expect(groups.status, JSON.stringify(body)).toBe(503);
      expect(body).toMatchObject({ error: "store_unavailable", message: expect.any(String), retryAfterSeconds: expect.any(Number) });
      expect(Number(groups.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(groupsMs, "GET /groups answered within 10 s").toBeLessThan(10_000);

      thaw();
      const thawedAt = Date.now();
      let back = await health();
      while (back.status !== 200 && Date.now() - thawedAt < 15_000) {
        await sleep(200);
        back = await health();
      }
      expect(back.status, JSON.stringify(back.body)).toBe(200);
      expect(back.body).toMatchObject({ ok: true, store: "available" });
      const again = await stack.request("GET", "/groups", stack.adminToken);
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      console.log(`npm start, hung store: /health 503 after ${healthMs} ms, GET /groups 503 in ${groupsMs} ms; /health 200 ${Date.now() - thawedAt} ms after SIGCONT`);
    } finally {
      thaw();
    }
  }, 45_000);
});
