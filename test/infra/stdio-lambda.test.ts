// A stdio MCP server packaged as ToolgateModule packages it (bundled minified and split, its package installed beside
// it), run as Lambda runs a function, behind a function URL that toolgate calls as an `mcp` group; and the functions
// toolgate deploys, which hold no runtime for stdio servers.
import { fork } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ulid } from "ulid";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Toolgate } from "@toolgate/core/toolgate";
import { CALL_TOKEN_HEADER } from "@toolgate/module";
import { registrationInput } from "@toolgate/module/lambda";
import type { RegistrationEvent } from "@toolgate/module/lambda";
import { viaFunctionUrl } from "../support/function-url";
import { serveFetch, serveToolgate } from "../support/http-server";
import type { Served, ServedToolgate } from "../support/http-server";
import { buildFunction, buildHandler, loadedAtInit } from "../support/lambda-build";
import type { Bundle } from "../support/lambda-build";
import { ADMIN_TOKEN, api, testToolgate } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { agentWithGroups } from "../integration/helpers";

const RUNTIME = fileURLToPath(new URL("../support/lambda-runtime.mjs", import.meta.url));

let dir: string;
let toolgate: Toolgate;
let served: ServedToolgate;
let request: Api;
type Instance = { runtime: ChildProcess; invoke: (event: unknown) => Promise<any> };
/** Two instances of the function, as Lambda runs invocations at once: the deploy's registration waits on toolgate, which calls the function's URL meanwhile. */
let registering: Instance;
let serving: Instance;
let front: Served;
const tokens: string[] = [];
/** Every request the function URL received, as it arrived. */
const received: Request[] = [];
/** toolgate's functions that import and call groups' tools, built as `sst deploy` builds them. */
const toolgateBundles: Bundle[] = [];

async function startFunction(file: string, environment: Record<string, string>): Promise<Instance> {
  const runtime = fork(RUNTIME, [], { execArgv: [], stdio: ["ignore", "ignore", "pipe", "ipc"], env: { PATH: process.env.PATH, LAMBDA_HANDLER_FILE: file, ...environment } });
  runtime.stderr!.on("data", (chunk: Buffer) => console.error(String(chunk).trimEnd().replace(/^/gm, "stdio module | ")));
  const pending = new Map<string, (value: unknown) => void>();
  runtime.on("message", (message: { id?: string; result?: unknown; error?: string }) => {
    if (message.id === undefined) return;
    pending.get(message.id)?.(message.error === undefined ? message.result : Promise.reject(new Error(message.error)));
    pending.delete(message.id);
  });
  const invoke = (event: unknown) =>
    new Promise<any>((resolve) => {
      const id = ulid();
      pending.set(id, resolve);
      runtime.send({ id, event });
    });
  await new Promise<void>((ready) => runtime.once("message", () => ready()));
  return { runtime, invoke };
}

/** The processes the function's process started: server-everything's, once per warm container. */
async function childrenOf(pid: number): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = Number((await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "")).split(") ")[1]?.split(" ")[1]);
    if (parent === pid) found.push(Number(entry));
  }
  return found;
}

const registrationEvent = (action: RegistrationEvent["tf"]["action"], registration: Parameters<typeof registrationInput>[0]): RegistrationEvent => ({
  ...registrationInput(registration),
  tf: { action, prev_input: action === "create" ? null : registrationInput(registration) },
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "stdio-lambda-"));
  toolgate = await testToolgate();
  served = await serveToolgate(toolgate);
  request = api(toolgate);
  const bundle = await buildFunction("stdio-module", "test/support/stdio-lambda-module.ts", dir, { minify: true, splitting: true, install: ["@modelcontextprotocol/server-everything"] });
  const environment = { TOOLGATE_URL: served.url, LAMBDA_TASK_ROOT: dirname(bundle.file) };
  [registering, serving] = await Promise.all([startFunction(bundle.file, environment), startFunction(bundle.file, environment)]);
  for (const name of ["groups", "execution", "modules"] as const) toolgateBundles.push(await buildHandler(name, dir));
  front = await serveFetch((incoming) => (tokens.push(incoming.headers.get(CALL_TOKEN_HEADER) ?? ""), received.push(incoming.clone()), viaFunctionUrl(serving.invoke)(incoming)));
}, 180_000);

afterAll(async () => {
  registering?.runtime.kill();
  serving?.runtime.kill();
  await front?.close();
  await served?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test("stdio module on Lambda - its deploy's event registers it as an mcp group, toolgate imports its tools and calls them signed, through one process for every invocation", async () => {
  const registration = { url: `${front.url}/`, toolgateUrl: served.url, adminToken: ADMIN_TOKEN, code: "assets/Everything-code-1.zip" };
  expect(await registering.invoke(registrationEvent("create", registration))).toMatchObject({ module: "everything", action: "announced", url: registration.url });
  const group = await request("GET", "/groups/everything");
  expect(group.status, JSON.stringify(group.body)).toBe(200);
  expect(group.body).toMatchObject({ executor: { type: "mcp", url: registration.url } });
  expect(group.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(expect.arrayContaining(["ev_echo", "ev_get-sum"]));
  const [server] = await childrenOf(serving.runtime.pid!);
  expect(server).toBeGreaterThan(0);

  const { agent, token } = await agentWithGroups(request, ["everything"]);
  const call = (tool: string, args: Record<string, unknown>) => request("POST", `/agents/${agent.id}/calls`, { token, body: { tool, arguments: args } });
  expect((await call("ev_echo", { message: "from Lambda" })).body.result.content).toBe("Echo: from Lambda");
  expect((await call("ev_get-sum", { a: 20, b: 22 })).body.result.content).toContain("42");
  expect(tokens.filter((sent) => sent.startsWith("ey")).length, "toolgate's signed token on each call").toBeGreaterThanOrEqual(2);
  expect(await childrenOf(serving.runtime.pid!)).toEqual([server]);

  const unsigned = await fetch(registration.url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { message: "anyone" } } }),
  });
  expect(unsigned.status).toBe(401);

  const bodies = await Promise.all(received.map((incoming) => incoming.clone().text()));
  const echoed = received[bodies.findIndex((body) => body.includes("from Lambda"))]!;
  const again = await fetch(registration.url, { method: "POST", headers: echoed.headers, body: await echoed.text() });
  expect(again.status, "toolgate's very request, sent again").toBe(401);
  expect(await again.json()).toMatchObject({ error: "unauthenticated", message: expect.stringContaining("token was already used") });

  expect(await registering.invoke(registrationEvent("delete", registration))).toMatchObject({ module: "everything", action: "withdrawn" });
  expect((await request("GET", "/groups/everything")).status).toBe(404);
});

test("built functions - toolgate's functions for AWS load nothing of the stdio executor at a cold start and hold nothing of the local runtime", async () => {
  for (const bundle of toolgateBundles) {
    const { name } = bundle;
    const inputs = Object.keys(bundle.metafile.inputs);
    expect(inputs.filter((input) => input.startsWith("packages/local/")), name).toEqual([]);
    const entry = Object.keys(bundle.metafile.outputs).find((output) => bundle.metafile.outputs[output]!.entryPoint)!;
    const atInit = loadedAtInit(bundle.metafile, entry).flatMap((output) => Object.keys(bundle.metafile.outputs[output]!.inputs));
    expect(atInit.filter((input) => /executor\/stdio(-process|-transport)?\.ts$|client\/dist\/stdio/.test(input)), name).toEqual([]);
  }
});

test("a stdio group on a deployment with no runtime for it - PUT /groups is 400 invalid_group_def pointing to ToolgateModule, and nothing starts", async () => {
  const refused = await request("PUT", "/groups/local-only", { body: { description: "A stdio server.", executor: { type: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] } } });
  expect(refused.status).toBe(400);
  expect(refused.body).toMatchObject({ error: "invalid_group_def" });
  expect(refused.body.message).toContain("ToolgateModule");
});
