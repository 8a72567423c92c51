// The five functions as `sst deploy` ships them (bundled, minified and split by infra/defaults.ts), each in a process of
// its own as Lambda runs it, given API Gateway and EventBridge events, on a fresh table of DynamoDB Local; and one module
// on the SDK as ToolgateModule deploys it, behind a function URL that toolgate calls over HTTP.
import { fork } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { ulid } from "ulid";
import { afterAll, beforeAll, expect, inject, test } from "vitest";
import { ROUTES } from "@toolgate/functions/routes";
import { ensureTable } from "@toolgate/local/local-table";
import { routedFetch } from "@toolgate/local/router";
import { CALL_TOKEN_HEADER, JWKS_PATH } from "@toolgate/module";
import { registrationInput } from "@toolgate/module/lambda";
import type { RegistrationEvent } from "@toolgate/module/lambda";
import { startExecutor } from "../support/executor";
import type { Executor } from "../support/executor";
import { payloadEvent, viaFunctionUrl } from "../support/function-url";
import { serveFetch } from "../support/http-server";
import { buildFunction, buildHandler, HANDLERS } from "../support/lambda-build";
import type { Bundle, HandlerName } from "../support/lambda-build";
import { eventually, moduleEvent } from "../integration/helpers";
import { tool } from "../support/toolgate";
import { githubToolset, startUpstreamMcp } from "../support/upstream-mcp";

const ADMIN_TOKEN = "lambda-admin-token-0123456789";
const RUNTIME = fileURLToPath(new URL("../support/lambda-runtime.mjs", import.meta.url));
const CONFIRMATION_TIMEOUT_MS = 500;
const CREDENTIALS = { accessKeyId: "local", secretAccessKey: "local" };

type Invoke = (event: unknown) => Promise<any>;
type Response = { status: number; body: any; headers: Record<string, string | number | boolean> };

let dir: string;
let table: string;
let executor: Executor;
const bundles = new Map<HandlerName, Bundle>();
const runtimes: ChildProcess[] = [];
const functions = {} as Record<HandlerName, Invoke>;

/** What toolgate's functions are given on AWS: their linked resources (SST_RESOURCE_*), here on DynamoDB Local. */
const toolgateEnvironment = (table: string) => ({
  TOOLGATE_DYNAMODB_ENDPOINT: inject("dynamoEndpoint"),
  TOOLGATE_CONFIRMATION_TIMEOUT_MS: String(CONFIRMATION_TIMEOUT_MS),
  SST_RESOURCE_App: JSON.stringify({ name: "toolgate", stage: "test" }),
  SST_RESOURCE_Table: JSON.stringify({ name: table, type: "sst.aws.Dynamo" }),
  SST_RESOURCE_AdminToken: JSON.stringify({ value: ADMIN_TOKEN, type: "sst.sst.Secret" }),
  SST_RESOURCE_SigningKey: JSON.stringify({ value: "lambda-signing-key-0123456789-0123456789", type: "sst.sst.Secret" }),
});

/** One function's process: the bundle is imported before the first event, as at a cold start. */
async function startFunction(bundle: Bundle<string>, environment: Record<string, string>): Promise<Invoke> {
  const child = fork(RUNTIME, [], {
    execArgv: [],
    stdio: ["ignore", "ignore", "pipe", "ipc"],
    env: {
      PATH: process.env.PATH,
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      LAMBDA_HANDLER_FILE: bundle.file,
      ...environment,
    },
  });
  runtimes.push(child);
  // Its warnings and errors are the running test's output: shown when that test fails, left out when it passes.
  child.stderr!.on("data", (chunk: Buffer) => console.error(String(chunk).trimEnd().replace(/^/gm, `${bundle.name} | `)));
  const pending = new Map<string, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  child.on("message", (message: { id?: string; result?: unknown; error?: string }) => {
    const waiting = message.id === undefined ? undefined : pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id!);
    if (message.error !== undefined) waiting.reject(new Error(`${bundle.name} threw ${message.error}`));
    else waiting.resolve(message.result);
  });
  await new Promise<void>((ready, failed) => {
    child.once("message", () => ready());
    child.once("exit", (code) => failed(new Error(`the ${bundle.name} function exited with ${code} while loading`)));
  });
  return (event) =>
    new Promise((resolve, reject) => {
      const id = ulid();
      pending.set(id, { resolve, reject });
      child.send({ id, event });
    });
}

/** An API Gateway HTTP API (payload 2.0) request event, as the gateway sends it to the function that owns the route. */
const gatewayEvent = (method: string, path: string, body?: unknown, token: string | null = ADMIN_TOKEN): APIGatewayProxyEventV2 => {
  const url = new URL(path, "https://api.example.test");
  const headers = {
    host: url.host,
    "user-agent": "vitest",
    ...(token === null ? {} : { authorization: `Bearer ${token}` }),
    ...(body === undefined ? {} : { "content-type": "application/json" }),
  };
  return payloadEvent(method, url, headers, body === undefined ? undefined : JSON.stringify(body));
};

async function request(name: "groups" | "roles" | "execution", method: string, path: string, body?: unknown, token?: string | null): Promise<Response> {
  const result = (await functions[name](gatewayEvent(method, path, body, token))) as APIGatewayProxyStructuredResultV2;
  const text = result.isBase64Encoded ? Buffer.from(result.body ?? "", "base64").toString("utf8") : (result.body ?? "");
  const json = String(result.headers?.["content-type"] ?? "").includes("application/json");
  return { status: result.statusCode ?? 200, body: json && text ? JSON.parse(text) : text, headers: result.headers ?? {} };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolgate-lambda-"));
  table = `lambda_${ulid()}`;
  const client = new DynamoDBClient({ endpoint: inject("dynamoEndpoint"), region: "us-east-1", credentials: CREDENTIALS });
  await ensureTable(client, table);
  client.destroy();
  for (const name of Object.keys(HANDLERS) as HandlerName[]) bundles.set(name, await buildHandler(name, dir));
  await Promise.all([...bundles.values()].map(async (bundle) => (functions[bundle.name] = await startFunction(bundle, toolgateEnvironment(table)))));
  executor = await startExecutor(({ body }) => ({ body: { content: `found ${body.arguments.query}`, type: "text" } }));
}, 120_000);

afterAll(async () => {
  for (const child of runtimes) child.kill();
  await executor?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A fresh group behind the test's executor, a role on it and an agent, each made through the function that owns the route. */
async function researcher() {
  const id = `search_${ulid().toLowerCase()}`;
  const group = await request("groups", "PUT", `/groups/${id}`, {
    description: "Searches the team's documents.",
    executor: { type: "http", url: `${executor.url}/run` },
    tools: [
      tool(`${id}_find`, "Finds documents by words.", {
        type: "object",
        properties: { query: { type: "string", minLength: 1 } },
        required: ["query"],
        additionalProperties: false,
      }),
      { ...tool(`${id}_purge`, "Deletes every document.", { type: "object", properties: {} }), "x-toolgate": { dangerous: true } },
    ],
  });
  expect(group.status, JSON.stringify(group.body)).toBe(201);
  const role = await request("roles", "POST", "/roles", { name: `researcher ${id}`, rolePrompt: "Find things.", toolGroups: [id] });
  expect(role.status, JSON.stringify(role.body)).toBe(201);
  const created = await request("execution", "POST", "/agents", { roleId: role.body.id, name: "ada" });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const { agent, token } = created.body as { agent: { id: string }; token: string };
  return { find: `${id}_find`, purge: `${id}_purge`, agentId: agent.id, token };
}

const callAs = (caller: { agentId: string; token: string }, toolName: string, args: Record<string, unknown>) =>
  request("execution", "POST", `/agents/${caller.agentId}/calls`, { tool: toolName, arguments: args }, caller.token);

test("built functions - each handler ships with chunks it loads only on first use (the split build infra/defaults.ts asks for)", async () => {
  for (const bundle of bundles.values()) {
    const files = await readdir(join(dir, bundle.name));
    expect(files, bundle.name).toContain(basename(bundle.file));
    expect(files.length, bundle.name).toBeGreaterThan(1);
    expect(bundle.initBytes, bundle.name).toBeLessThan(bundle.bytes);
  }
});

test("built functions - a group registered, a role and an agent created, and a guarded call to an http executor completes", async () => {
  const caller = await researcher();
  const tools = await request("execution", "GET", `/agents/${caller.agentId}/tools`, undefined, caller.token);
  expect(tools.status, JSON.stringify(tools.body)).toBe(200);
  expect(JSON.stringify(tools.body)).toContain(caller.find);

  const call = await callAs(caller, caller.find, { query: "budget" });
  expect(call.status, JSON.stringify(call.body)).toBe(200);
  expect(call.body).toMatchObject({ status: "completed", result: { content: "found budget", type: "text" } });
  expect(executor.requestsFor(caller.find)).toHaveLength(1);

  const history = await request("execution", "GET", `/agents/${caller.agentId}/calls`);
  expect(history.status).toBe(200);
  expect(JSON.stringify(history.body)).toContain(call.body.callId);
});

test("built functions - Cedar loads from its installed package on first use: a shipped policy refuses rm -rf /, and /health?deep=1 says the engine answers", async () => {
  const role = await request("roles", "POST", "/roles", { name: `shell ${ulid()}`, rolePrompt: "Runs commands.", toolGroups: ["command"] });
  expect(role.status, JSON.stringify(role.body)).toBe(201);
  const created = await request("execution", "POST", "/agents", { roleId: role.body.id, name: "sam" });
  const { agent, token } = created.body as { agent: { id: string }; token: string };
  const refused = await callAs({ agentId: agent.id, token }, "run_command", { command: "rm -rf /" });
  expect(refused.status, JSON.stringify(refused.body)).toBe(403);
  expect(refused.body).toMatchObject({ error: "policy_denied", policies: ["dangerous-commands"] });
  const health = await request("execution", "GET", "/health?deep=1", undefined, null);
  expect(health.body).toEqual({ ok: true, store: "available", policyEngine: "available" });
});

test("built functions - arguments that break the tool's JSON Schema are refused 400 and the executor is not called", async () => {
  const caller = await researcher();
  const refused = await callAs(caller, caller.find, { query: "" });
  expect(refused.status, JSON.stringify(refused.body)).toBe(400);
  expect(refused.body.error).toBe("invalid_arguments");
  expect(executor.requestsFor(caller.find)).toHaveLength(0);
});

test("built functions - a forged agent token is refused 401 and a request without credentials too", async () => {
  const caller = await researcher();
  const forged = await request("execution", "GET", `/agents/${caller.agentId}/tools`, undefined, `${caller.token.slice(0, -4)}AAAA`);
  expect(forged.status, JSON.stringify(forged.body)).toBe(401);
  expect(forged.body.error).toEqual(expect.any(String));
  expect((await request("groups", "GET", "/groups", undefined, null)).status).toBe(401);
});

test("built functions - the console is served as HTML by the roles function", async () => {
  const page = await request("roles", "GET", "/console");
  expect(page.status).toBe(200);
  expect(String(page.headers["content-type"])).toMatch(/text\/html/);
  expect(page.body).toContain("<html");
});

test("built functions - a module.loaded event through the modules function registers the module's group", async () => {
  const module = `chrome_${ulid().toLowerCase()}`;
  const event = moduleEvent("module.loaded", {
    module,
    version: 1,
    description: "Chrome controller",
    tools: [tool(`${module}_open_tab`, "Opens a tab.")],
    executor: { type: "http", url: `${executor.url}/run` },
  });
  expect(await functions.modules(event)).toMatchObject({ outcome: "loaded", module, version: 1, groupId: module });
  const group = await request("groups", "GET", `/groups/${module}`);
  expect(group.status).toBe(200);
  expect(group.body).toMatchObject({ id: module, source: "module", module });
});

test("built functions - the cleanup function expires a confirmation nobody answered", async () => {
  const caller = await researcher();
  const waiting = await callAs(caller, caller.purge, {});
  expect(waiting.status, JSON.stringify(waiting.body)).toBe(202);
  const report = await eventually(
    () => functions.cleanup({ "detail-type": "Scheduled Event", source: "aws.events", detail: {} }),
    (done: { settled: number }) => done.settled >= 1,
  );
  expect(report).toEqual({ indexed: expect.any(Number), counted: expect.any(Number), settled: 1, deleted: expect.any(Number) });
  const call = await request("execution", "GET", `/agents/${caller.agentId}/calls/${waiting.body.callId}`);
  expect(call.body).toMatchObject({ status: "expired", error: { code: "confirmation_expired" } });
  expect(executor.requestsFor(caller.purge)).toHaveLength(0);
});

/** One JSON-RPC request to the built execution function's /mcp as a 2025 client sends it (stateless, no session). */
async function mcpRequest(token: string, method: string, params: Record<string, unknown>) {
  const event = gatewayEvent("POST", "/mcp", { jsonrpc: "2.0", id: 1, method, params }, token);
  event.headers = { ...event.headers, accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" };
  const result = (await functions.execution(event)) as APIGatewayProxyStructuredResultV2;
  const text = result.isBase64Encoded ? Buffer.from(result.body ?? "", "base64").toString("utf8") : (result.body ?? "");
  const data = text.split("\n").find((line) => line.startsWith("data: "));
  return { status: result.statusCode ?? 200, message: JSON.parse(data ? data.slice("data: ".length) : text) };
}

test("built functions - the execution function serves an agent's MCP endpoint, its SDK loaded from a chunk on first use", async () => {
  const caller = await researcher();
  const listed = await mcpRequest(caller.token, "tools/list", {});
  expect(listed.status, JSON.stringify(listed.message)).toBe(200);
  expect(listed.message.result.tools.map((t: { name: string }) => t.name).sort()).toEqual([caller.find, caller.purge].sort());
  const called = await mcpRequest(caller.token, "tools/call", { name: caller.find, arguments: { query: "roadmap" } });
  expect(called.message.result).toMatchObject({ content: [{ type: "text", text: "found roadmap" }] });
  const waiting = await mcpRequest(caller.token, "tools/call", { name: caller.purge, arguments: {} });
  expect(waiting.message.result).toMatchObject({ isError: true, _meta: { code: "awaiting_confirmation" } });
});

test("built functions - the groups function imports an MCP server's tools and the execution function forwards a call to it, both SDK chunks loaded on first use", async () => {
  const upstream = await startUpstreamMcp({ tools: githubToolset("gh_context").tools });
  try {
    const id = `gh_${ulid().toLowerCase()}`;
    const group = await request("groups", "PUT", `/groups/${id}`, { description: "GitHub context tools.", executor: { type: "mcp", url: upstream.url, toolPrefix: id } });
    expect(group.status, JSON.stringify(group.body)).toBe(201);
    const imported = group.body.tools.map((definition: { function: { name: string } }) => definition.function.name);
    expect(imported).toEqual(githubToolset("gh_context").tools.map((t) => `${id}_${t.name}`));
    const role = await request("roles", "POST", "/roles", { name: `reader ${id}`, rolePrompt: "Read context.", toolGroups: [id] });
    const created = await request("execution", "POST", "/agents", { roleId: role.body.id, name: "grace" });
    const caller = { agentId: created.body.agent.id as string, token: created.body.token as string };
    const call = await callAs(caller, `${id}_get_me`, {});
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body).toMatchObject({ status: "completed", result: { content: "get_me {}" } });
    expect(upstream.calls.map((c) => c.name)).toEqual(["get_me"]);
  } finally {
    await upstream.close();
  }
});

/** The SDK's one-tool module as its ToolgateModule deploys it: minified and split (its MCP server and bus client are chunks loaded on use). */
const SDK_MODULE = "test/support/sdk-lambda-module.ts";

/** The registration event the deploy's CRUD invocation sends (Terraform's aws_lambda_invocation adds `tf`). */
const registrationEvent = (action: RegistrationEvent["tf"]["action"], registration: Parameters<typeof registrationInput>[0]): RegistrationEvent => ({
  ...registrationInput(registration),
  tf: { action, prev_input: action === "create" ? null : registrationInput(registration) },
});

test("built functions - an SDK module as a Lambda is registered by its deploy's event, runs toolgate's signed call from its function URL, refuses any other and is withdrawn on removal", async () => {
  // toolgate's API over HTTP, routed as API Gateway routes it: the module fetches the JWKS there while the execution
  // function waits on its answer, so, as Lambda would, another instance of the execution function serves it.
  const toolgatePaths: string[] = [];
  const execution = await startFunction(bundles.get("execution")!, toolgateEnvironment(table));
  const api = routedFetch([
    { routes: ROUTES.groups, app: { fetch: viaFunctionUrl(functions.groups) } },
    { routes: ROUTES.roles, app: { fetch: viaFunctionUrl(functions.roles) } },
    { routes: ROUTES.execution, app: { fetch: viaFunctionUrl(execution) } },
  ]);
  const toolgate = await serveFetch((request) => (toolgatePaths.push(new URL(request.url).pathname), api(request)));
  const bundle = await buildFunction("sdk-module", SDK_MODULE, dir, { minify: true, splitting: true });
  expect(bundle.initBytes, "what the one-tool module's bundle loads at a cold start").toBeLessThan(150 * 1024);
  const invokeModule = await startFunction(bundle, { TOOLGATE_URL: toolgate.url });
  const tokens: string[] = [];
  const sent: Request[] = [];
  const front = await serveFetch((request) => (tokens.push(request.headers.get(CALL_TOKEN_HEADER) ?? ""), sent.push(request.clone()), viaFunctionUrl(invokeModule)(request)));
  try {
    // The function URL, as Lambda gives it (with its trailing slash): where toolgate calls the module, and its tokens' audience.
    const registration = { url: `${front.url}/`, toolgateUrl: toolgate.url, adminToken: ADMIN_TOKEN, code: "assets/SdkModule-code-1.zip" };
    expect(await invokeModule(registrationEvent("create", registration))).toMatchObject({ module: "sdk_letters", action: "announced", url: registration.url });
    const group = await request("groups", "GET", "/groups/sdk_letters");
    expect(group.status, JSON.stringify(group.body)).toBe(200);
    expect(group.body).toMatchObject({ id: "sdk_letters", executor: { type: "http", url: registration.url } });

    const role = await request("roles", "POST", "/roles", { name: "letter counter", rolePrompt: "Count letters.", toolGroups: ["sdk_letters"] });
    const created = await request("execution", "POST", "/agents", { roleId: role.body.id, name: "lin" });
    const caller = { agentId: created.body.agent.id as string, token: created.body.token as string };
    const call = await callAs(caller, "sdk_letter_count", { text: "one two" });
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body).toMatchObject({ status: "completed", result: { type: "json" } });
    expect(JSON.parse(call.body.result.content)).toEqual({ letters: 6, agent: caller.agentId });
    expect(tokens[0], "toolgate's signed token on its call").toMatch(/^ey/);
    expect(toolgatePaths, "the module fetched the keys from the execution function").toContain(JWKS_PATH);

    const direct = (token?: string) =>
      fetch(registration.url, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token ? { [CALL_TOKEN_HEADER]: token } : {}) },
        body: JSON.stringify({ callId: call.body.callId, tool: "sdk_letter_count", arguments: { text: "other words" }, agentId: caller.agentId, roleId: role.body.id }),
      });
    // toolgate's very request again; no token; toolgate's token replayed for other arguments; a token toolgate did not sign for calls (the agent's).
    const again = await fetch(registration.url, { method: "POST", headers: sent[0]!.headers, body: await sent[0]!.text() });
    const refusals = [
      [again, "token was already used"],
      [await direct(), "carries no toolgate-call token"],
      [await direct(tokens[0]), "signed for another call"],
      [await direct(caller.token), "not valid for this module"],
    ] as const;
    for (const [refused, reason] of refusals) {
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ error: "unauthenticated", message: expect.stringContaining(reason) });
    }

    expect(await invokeModule(registrationEvent("delete", registration))).toMatchObject({ module: "sdk_letters", action: "withdrawn" });
    expect((await request("groups", "GET", "/groups/sdk_letters")).status).toBe(404);
  } finally {
    await front.close();
    await toolgate.close();
  }
});
