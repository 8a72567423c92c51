import { afterAll, beforeAll, expect, test } from "vitest";
import type { Toolgate } from "@toolgate/core/toolgate";
import { api, testToolgate, tool } from "../support/toolgate";
import type { Api, ApiResponse } from "../support/toolgate";
import { startExecutor } from "../support/executor";
import type { Executor } from "../support/executor";
import { PutItemCommand } from "@aws-sdk/client-dynamodb";
import { agentWithGroups, createAgent, createRole, putGroup, secondInstance, unique } from "./helpers";
import FIRST_EDITION_TEXTS from "../support/shipped-first-edition.json";

let toolgate: Toolgate;
let request: Api;
let executor: Executor;
let shells: string;

/** The shipped policies' texts and descriptions of the first edition, as tables written then still hold them. */
const FIRST_EDITION: Record<string, { cedar: string; description: string }> = FIRST_EDITION_TEXTS;
const SHIPPED = ["command-allowlist", "command-code-execution", "dangerous-commands", "javascript-code", "workspace-paths", "write-size"];
const CMD = { type: "object", properties: { cmd: { type: "string" } }, required: ["cmd"] };
const TARGET = { type: "object", properties: { target: { type: "string" } }, required: ["target"] };
/** A tool whose `cmd` is a shell command line; identical calls in a row are allowed, so repeating a call is never a doom loop. */
const shellTool = (name: string, policy: Record<string, unknown> = {}) => ({
  ...tool(name, "Runs a command line on a server.", CMD),
  "x-toolgate": { commandArguments: ["cmd"], repeatLimit: 0, ...policy },
});

const names = {
  crud: unique("crud"),
  elsewhere: unique("elsewhere"),
  rules: unique("rules"),
  layered: unique("layered"),
  departments: unique("departments"),
  personal: unique("personal"),
  allowed: unique("allowed"),
  logged: unique("logged"),
  unparsed: unique("unparsed"),
  approval: unique("approval"),
  recreated: unique("recreated"),
  drafted: unique("drafted"),
  redrafted: unique("redrafted"),
  simulated: unique("simulated"),
  hidden: unique("hidden"),
  partly: unique("partly"),
  budget: unique("budget"),
};

beforeAll(async () => {
  [toolgate, executor] = await Promise.all([testToolgate(), startExecutor()]);
  request = api(toolgate);
  shells = unique("shells");
  await putGroup(request, shells, {
    description: "Command lines run on servers by an HTTP executor.",
    executor: { type: "http", url: `${executor.url}/run` },
    tools: [
      { ...tool(names.crud, "Deploys a target.", TARGET), "x-toolgate": { repeatLimit: 0 } },
      shellTool(names.rules),
      shellTool(names.elsewhere),
      shellTool(names.layered),
      shellTool(names.departments),
      shellTool(names.personal),
      shellTool(names.allowed, { requireConfirmation: true }),
      shellTool(names.logged),
      shellTool(names.unparsed),
      shellTool(names.approval),
      shellTool(names.recreated),
      shellTool(names.drafted),
      shellTool(names.redrafted),
      shellTool(names.simulated),
      shellTool(names.hidden),
      shellTool(names.partly),
      shellTool(names.budget, { rateLimit: { perMinute: 2 } }),
    ],
  });
});

afterAll(() => executor?.close());

type Issued = Awaited<ReturnType<typeof createAgent>>;

const callAs = (agent: Issued, toolName: string, args: Record<string, unknown>) =>
  request("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: toolName, arguments: args } });

const readCall = async (agent: Issued, callId: string) => {
  const response = await request("GET", `/agents/${agent.agent.id}/calls/${callId}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
};

async function putPolicy(id: string, body: Record<string, unknown>, status = 201) {
  const response = await request("PUT", `/policies/${id}`, { body });
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  return response.body;
}

async function deletePolicy(id: string) {
  const response = await request("DELETE", `/policies/${id}`);
  expect(response.status, JSON.stringify(response.body)).toBe(204);
}

async function listPolicies(): Promise<{ policies: any[]; revision: number }> {
  const response = await request("GET", "/policies");
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

/** The requests the executor received for this agent's calls of this tool. */
const reached = (agent: Issued, toolName: string) => executor.requestsFor(toolName).filter((received) => received.body?.agentId === agent.agent.id);

const expectDenied = (response: ApiResponse, policies: string[]) => {
  expect(response.status, JSON.stringify(response.body)).toBe(403);
  expect(response.body).toMatchObject({ error: "policy_denied", callId: expect.stringMatching(/^call_/) });
  expect([...response.body.policies].sort()).toEqual([...policies].sort());
};

const expectStatus = (response: ApiResponse, status: number, callStatus: string) => {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.status).toBe(callStatus);
};

const forbid = (toolName: string, condition: string) => `forbid (principal, action == Action::"${toolName}", resource) when { ${condition} };`;

// ---------------------------------------------------------------- managing policies

test("GET /policies - a fresh table lists the shipped policies, each without problems, with the policy set's revision", async () => {
  const { policies, revision } = await listPolicies();
  expect(revision).toEqual(expect.any(Number));
  const shipped = policies.filter((policy) => policy.shipped);
  expect(shipped.map((policy) => policy.id)).toEqual(SHIPPED);
  for (const policy of shipped) expect(policy, policy.id).toMatchObject({ scope: "system", version: 1, problems: [], cedar: expect.any(String) });
  expect(Object.fromEntries(shipped.map((policy) => [policy.id, [policy.mode, policy.effect]]))).toEqual({
    "workspace-paths": ["enforce", "deny"],
    "dangerous-commands": ["enforce", "deny"],
    "write-size": ["enforce", "deny"],
    "command-allowlist": ["log_only", "ask"],
    "command-code-execution": ["enforce", "ask"],
    "javascript-code": ["enforce", "ask"],
  });
  const one = await request("GET", "/policies/workspace-paths");
  expect(one.status).toBe(200);
  expect(one.headers.get("etag")).toBe('"1"');
  expect(one.body).toEqual(shipped.find((policy) => policy.id === "workspace-paths"));
});

test("GET /policies - only an admin may read or change policies", async () => {
  const agent = await agentWithGroups(request, [shells]);
  for (const [method, path, body] of [
    ["GET", "/policies", undefined],
    ["GET", "/policies/workspace-paths", undefined],
    ["PUT", "/policies/mine", { scope: "system", rule: { tool: names.crud, argument: "target", match: "*", effect: "allow" } }],
    ["DELETE", "/policies/workspace-paths", undefined],
  ] as const) {
    const response = await request(method, path, { token: agent.token, body });
    expect(response.status, `${method} ${path}`).toBe(403);
  }
  expect((await listPolicies()).policies.map((policy) => policy.id)).toEqual(expect.arrayContaining(SHIPPED));
  expect((await request("GET", "/policies/mine")).status).toBe(404);
});

test("PUT /policies/:id - 201 creates and 200 replaces, each with its version as ETag; a stale If-Match is 412 version_conflict and changes nothing", async () => {
  const id = unique("crud-policy");
  const first = { scope: "system", mode: "enforce", description: "No production deploys.", cedar: forbid(names.crud, 'context.input.target like "prod*"') };
  const created = await request("PUT", `/policies/${id}`, { body: first });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(created.headers.get("etag")).toBe('"1"');
  expect(created.body).toMatchObject({ id, version: 1, scope: "system", mode: "enforce", effect: "deny", description: "No production deploys.", cedar: first.cedar, problems: [] });
  const before = await listPolicies();
  expect(before.policies.find((policy) => policy.id === id)).toMatchObject({ version: 1, problems: [] });

  const second = { ...first, mode: "log_only", cedar: forbid(names.crud, 'context.input.target like "staging*"') };
  const replaced = await request("PUT", `/policies/${id}`, { body: second, headers: { "if-match": '"1"' } });
  expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
  expect(replaced.headers.get("etag")).toBe('"2"');
  expect(replaced.body).toMatchObject({ id, version: 2, mode: "log_only", cedar: second.cedar, createdAt: created.body.createdAt });
  expect((await listPolicies()).revision).toBeGreaterThan(before.revision);

  const stale = await request("PUT", `/policies/${id}`, { body: first, headers: { "if-match": '"1"' } });
  expect(stale.status, JSON.stringify(stale.body)).toBe(412);
  expect(stale.body).toMatchObject({ error: "version_conflict", currentVersion: 2 });
  const kept = await request("GET", `/policies/${id}`);
  expect(kept.headers.get("etag")).toBe('"2"');
  expect(kept.body).toMatchObject({ version: 2, mode: "log_only", cedar: second.cedar });

  const unconditional = await request("PUT", `/policies/${id}`, { body: first });
  expect(unconditional.status).toBe(200);
  expect(unconditional.body.version).toBe(3);

  const neverCreated = await request("PUT", `/policies/${unique("ghost")}`, { body: first, headers: { "if-match": '"1"' } });
  expect(neverCreated.status, JSON.stringify(neverCreated.body)).toBe(412);
  expect(neverCreated.body.error).toBe("version_conflict");
  const garbled = await request("PUT", `/policies/${id}`, { body: first, headers: { "if-match": "yesterday" } });
  expect(garbled.status).toBe(400);
  expect(garbled.body.error).toBe("invalid_if_match");
  await deletePolicy(id);
});

test("DELETE /policies/:id - a stale If-Match is 412 and keeps the policy; the current version deletes it (204); then GET and DELETE are 404 policy_not_found", async () => {
  const id = unique("doomed");
  await putPolicy(id, { scope: "system", cedar: forbid(names.crud, 'context.input.target == "doomed"') });
  await putPolicy(id, { scope: "system", cedar: forbid(names.crud, 'context.input.target == "doomed-2"') }, 200);
  const stale = await request("DELETE", `/policies/${id}`, { headers: { "if-match": '"1"' } });
  expect(stale.status, JSON.stringify(stale.body)).toBe(412);
  expect(stale.body).toMatchObject({ error: "version_conflict", currentVersion: 2 });
  expect((await request("GET", `/policies/${id}`)).status).toBe(200);

  const deleted = await request("DELETE", `/policies/${id}`, { headers: { "if-match": '"2"' } });
  expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
  for (const method of ["GET", "DELETE"]) {
    const gone = await request(method, `/policies/${id}`);
    expect(gone.status, method).toBe(404);
    expect(gone.body, method).toMatchObject({ error: "policy_not_found", policyId: id });
  }
  expect((await listPolicies()).policies.map((policy) => policy.id)).not.toContain(id);
});

test("PUT /policies/:id - a short rule is stored with the Cedar it compiles to; POST /policies/validate answers the same Cedar and any problems without saving", async () => {
  const rule = { tool: names.rules, match: "git push *", effect: "ask", reason: "Pushing needs a person's look" };
  const before = await listPolicies();
  const validated = await request("POST", "/policies/validate", { body: { scope: "system", rule } });
  expect(validated.status, JSON.stringify(validated.body)).toBe(200);
  expect(validated.body).toMatchObject({ valid: true, effect: "ask", problems: [] });
  expect(validated.body.cedar).toContain(`Action::"${names.rules}"`);
  expect(validated.body.cedar).toContain('context.command like "git push *"');
  expect(validated.body.cedar).toContain('@effect("ask")');

  const broken = await request("POST", "/policies/validate", { body: { scope: "system", cedar: "permit (\n  principal,\n  action ==\n);" } });
  expect(broken.status, JSON.stringify(broken.body)).toBe(200);
  expect(broken.body.valid).toBe(false);
  expect(broken.body.problems[0]).toMatchObject({ message: expect.any(String), line: expect.any(Number), column: expect.any(Number) });
  const unknownArgument = await request("POST", "/policies/validate", { body: { scope: "system", cedar: forbid(names.crud, 'context.input.region == "eu"') } });
  expect(unknownArgument.body).toMatchObject({ valid: false, problems: [expect.objectContaining({ message: expect.stringContaining("input.region") })] });
  expect(await listPolicies()).toEqual(before);

  const id = unique("push-asks");
  const stored = await putPolicy(id, { scope: "system", rule });
  expect(stored).toMatchObject({ id, effect: "ask", rule, reason: rule.reason, cedar: validated.body.cedar, problems: [] });
  expect((await request("GET", `/policies/${id}`)).body.cedar).toBe(validated.body.cedar);
  await deletePolicy(id);
});

test("PUT /policies/:id - bad input is a 400 with a stable code (never a 500), and nothing is saved", async () => {
  const before = await listPolicies();
  const valid = forbid(names.crud, 'context.input.target == "x"');
  const padded = (bytes: number) => `// ${"x".repeat(bytes - valid.length - 4)}\n${valid}`;
  const cases: Array<{ what: string; id?: string; body?: unknown; rawBody?: string; code: string; problem?: RegExp; at?: { line: number } }> = [
    { what: "Cedar that does not parse", body: { scope: "system", cedar: `forbid (principal, action, resource)\nwhen { context.input. };` }, code: "invalid_policy", at: { line: 2 } },
    { what: "an unknown tool (Cedar)", body: { scope: "system", cedar: 'forbid (principal, action == Action::"no_such_tool", resource);' }, code: "invalid_policy", problem: /no_such_tool/ },
    { what: "an unknown group (Cedar)", body: { scope: "system", cedar: 'forbid (principal, action in Action::"group:no_such_group", resource);' }, code: "invalid_policy", problem: /no_such_group/ },
    { what: "an unknown tool (rule)", body: { scope: "system", rule: { tool: "no_such_tool", match: "*", effect: "deny" } }, code: "invalid_policy", problem: /no_such_tool/ },
    { what: "an argument the tool does not have (Cedar)", body: { scope: "system", cedar: forbid(names.crud, 'context.input.region == "eu"') }, code: "invalid_policy", problem: /region/, at: { line: 1 } },
    { what: "an argument the tool does not have (rule)", body: { scope: "system", rule: { tool: names.crud, argument: "region", match: "eu*", effect: "deny" } }, code: "invalid_policy", problem: /region/ },
    { what: "a string argument compared to a number", body: { scope: "system", cedar: forbid(names.crud, "context.input.target > 3") }, code: "invalid_policy", problem: /Long|String/, at: { line: 1 } },
    { what: "two policies in one text", body: { scope: "system", cedar: `${valid}\n${forbid(names.rules, 'context.command == "x"')}` }, code: "invalid_policy", problem: /exactly one/ },
    { what: "a template", body: { scope: "system", cedar: `forbid (principal == ?principal, action == Action::"${names.crud}", resource);` }, code: "invalid_policy", problem: /template/ },
    { what: '@effect("deny") on a permit', body: { scope: "system", cedar: `@effect("deny")\npermit (principal, action == Action::"${names.crud}", resource);` }, code: "invalid_policy", problem: /@effect/ },
    { what: "more than 64 KiB of Cedar", body: { scope: "system", cedar: padded(64 * 1024 + 1) }, code: "invalid_policy", problem: /64 KiB/ },
    { what: "a scope of no known kind", body: { scope: "team:ops", cedar: valid }, code: "invalid_policy" },
    { what: "an empty department scope", body: { scope: "department:", cedar: valid }, code: "invalid_policy" },
    { what: "a role scope naming no role", body: { scope: "role:rol_no_such_role", cedar: valid }, code: "invalid_policy", problem: /names no role.*rol_no_such_role/ },
    { what: "an agent scope naming no agent", body: { scope: "agent:agt_no_such_agent", rule: { tool: names.crud, argument: "target", match: "*", effect: "deny" } }, code: "invalid_policy", problem: /names no agent.*agt_no_such_agent/ },
    { what: "an unknown mode", body: { scope: "system", mode: "sometimes", cedar: valid }, code: "invalid_policy" },
    { what: "an unknown effect (rule)", body: { scope: "system", rule: { tool: names.crud, argument: "target", match: "*", effect: "maybe" } }, code: "invalid_policy" },
    { what: "both cedar and a rule", body: { scope: "system", cedar: valid, rule: { tool: names.crud, argument: "target", match: "*", effect: "deny" } }, code: "invalid_policy" },
    { what: "neither cedar nor a rule", body: { scope: "system" }, code: "invalid_policy" },
    { what: "an empty Cedar text", body: { scope: "system", cedar: "" }, code: "invalid_policy" },
    { what: "a body that is not JSON", rawBody: "{ scope: system", code: "invalid_json" },
    { what: "an id with a space", id: "bad%20id", body: { scope: "system", cedar: valid }, code: "invalid_policy_id" },
    { what: "an id of 65 characters", id: "p".repeat(65), body: { scope: "system", cedar: valid }, code: "invalid_policy_id" },
  ];
  for (const { what, id, body, rawBody, code, problem, at } of cases) {
    const response = await request("PUT", `/policies/${id ?? unique("bad")}`, rawBody === undefined ? { body } : { rawBody });
    expect(response.status, `${what}: ${JSON.stringify(response.body)}`).toBe(400);
    expect(response.body.error, what).toBe(code);
    expect(response.body.message, what).toEqual(expect.any(String));
    if (problem) expect(response.body.problems.map((found: { message: string }) => found.message).join(" "), what).toMatch(problem);
    if (at) expect(response.body.problems[0], what).toMatchObject({ line: at.line, column: expect.any(Number), start: expect.any(Number), end: expect.any(Number) });
  }
  expect(await listPolicies()).toEqual(before);

  const exactly64KiB = unique("just-fits");
  expect(Buffer.byteLength(padded(64 * 1024))).toBe(64 * 1024);
  await putPolicy(exactly64KiB, { scope: "department:nobody-yet", cedar: padded(64 * 1024) });
  await deletePolicy(exactly64KiB);
});

test("PUT /policies/:id - the 1,001st policy is 409 too_many_policies; replacing one still works, and deleting one makes room", async () => {
  const own = await testToolgate();
  const admin = api(own);
  const shipped = (await admin("GET", "/policies")).body.policies.length;
  const ids = Array.from({ length: 1000 - shipped }, (_, n) => `bulk-${n}`);
  const body = (id: string) => ({ scope: `department:${id}`, cedar: `forbid (principal, action == Action::"read_file", resource) when { context.path like "/bulk/${id}/*" };` });
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let id = ids[next++]; id !== undefined; id = ids[next++]) {
        const response = await admin("PUT", `/policies/${id}`, { body: body(id) });
        expect(response.status, JSON.stringify(response.body)).toBe(201);
      }
    }),
  );
  const full = await admin("GET", "/policies");
  expect(full.body.policies).toHaveLength(1000);
  const over = await admin("PUT", "/policies/one-too-many", { body: body("one-too-many") });
  expect(over.status, JSON.stringify(over.body)).toBe(409);
  expect(over.body).toMatchObject({ error: "too_many_policies", limit: 1000 });
  expect((await admin("GET", "/policies")).body).toEqual(full.body);
  expect((await admin("PUT", "/policies/bulk-0", { body: body("bulk-0-again") })).status).toBe(200);
  expect((await admin("DELETE", "/policies/bulk-1")).status).toBe(204);
  expect((await admin("PUT", "/policies/one-too-many", { body: body("one-too-many") })).status).toBe(201);
}, 120_000);

test("shipped policies - written once: a deleted one stays deleted when another instance starts on the same table, and the others stay as edited", async () => {
  const own = await testToolgate();
  const admin = api(own);
  expect((await admin("DELETE", "/policies/write-size")).status).toBe(204);
  const edited = await admin("PUT", "/policies/command-allowlist", {
    body: { scope: "system", mode: "enforce", cedar: (await admin("GET", "/policies/command-allowlist")).body.cedar },
  });
  expect(edited.status, JSON.stringify(edited.body)).toBe(200);
  const other = api(await secondInstance(own));
  const listed = (await other("GET", "/policies")).body.policies;
  expect(listed.map((policy: { id: string }) => policy.id)).toEqual(SHIPPED.filter((id) => id !== "write-size"));
  expect(listed.find((policy: { id: string }) => policy.id === "command-allowlist")).toMatchObject({ version: 2, mode: "enforce", shipped: true });
});

test("shipped policies - a table of the first edition gets the policies added since and the new text of each it holds unedited, keeping its mode; an edited or deleted one is left as it is", async () => {
  const own = await testToolgate();
  const admin = api(own);
  const put = async (id: string, body: Record<string, unknown>) => expect((await admin("PUT", `/policies/${id}`, { body })).status, id).toBe(200);
  await put("dangerous-commands", { scope: "system", cedar: FIRST_EDITION["dangerous-commands"]!.cedar, description: FIRST_EDITION["dangerous-commands"]!.description });
  await put("command-allowlist", { scope: "system", mode: "enforce", cedar: FIRST_EDITION["command-allowlist"]!.cedar, description: FIRST_EDITION["command-allowlist"]!.description });
  const editedText = `${FIRST_EDITION["workspace-paths"]!.cedar}\n// ours`;
  await put("workspace-paths", { scope: "system", cedar: editedText });
  for (const id of ["write-size", "command-code-execution", "javascript-code"]) expect((await admin("DELETE", `/policies/${id}`)).status).toBe(204);
  await own.db.client.send(new PutItemCommand({ TableName: own.db.table, Item: { pk: { S: "CATALOG" }, sk: { S: "SHIPPED#policies" } } }));

  const upgraded = api(await secondInstance(own));
  const listed = new Map<string, { cedar: string; mode: string; description?: string; shipped?: true }>(
    (await upgraded("GET", "/policies")).body.policies.map((policy: { id: string }) => [policy.id, policy]),
  );
  const shipped = new Map((await listPolicies()).policies.filter((policy) => policy.shipped).map((policy) => [policy.id, policy]));
  expect([...listed.keys()].sort()).toEqual(SHIPPED.filter((id) => id !== "write-size"));
  expect(listed.get("dangerous-commands")).toMatchObject({ cedar: shipped.get("dangerous-commands")!.cedar, mode: "enforce", shipped: true });
  expect(listed.get("command-allowlist")).toMatchObject({ cedar: shipped.get("command-allowlist")!.cedar, mode: "enforce", description: expect.stringContaining("unless an allow rule") });
  expect(listed.get("workspace-paths")).toMatchObject({ cedar: editedText });
  expect(listed.get("command-code-execution")).toMatchObject({ mode: "enforce", shipped: true });
  const again = api(await secondInstance(own));
  expect((await again("GET", "/policies")).body.policies.map((policy: { version: number }) => policy.version)).toEqual([...listed.values()].map((policy) => (policy as unknown as { version: number }).version));
});

// ---------------------------------------------------------------- workspace paths

test("read_file - under a role's workspaceRoot /work/app, a path that leaves it is 403 policy_denied naming the root; a path inside is authorized, and each call record carries the decision", async () => {
  const role = await createRole(request, { name: unique("app"), toolGroups: ["workspace", "command"], workspaceRoot: "/work/app" });
  expect(role).toMatchObject({ workspaceRoot: "/work/app" });
  const agent = await createAgent(request, role.id);
  for (const path of ["../etc/passwd", "//etc/passwd", "~/.ssh/id_rsa", "./a/../../b", "/work/app/../other/x", "/work/app-old/x", "/work/apple", "/etc/passwd", "src/../../app2/x"]) {
    const refused = await callAs(agent, "read_file", { path });
    expectDenied(refused, ["workspace-paths"]);
    expect(refused.body.message, path).toContain('"/work/app"');
    expect(refused.body).toMatchObject({ toolName: "read_file", recoverable: true, workspaceRoot: "/work/app" });
    const record = await readCall(agent, refused.body.callId);
    expect(record, path).toMatchObject({ status: "refused", error: { code: "policy_denied" }, decision: { effect: "deny", policies: ["workspace-paths"], revision: expect.any(Number) } });
  }
  for (const path of ["src/index.ts", "/work/app/src/x", "/work/app", "./src/../README.md", "."]) {
    const authorized = await callAs(agent, "read_file", { path });
    expect(authorized.status, `${path}: ${JSON.stringify(authorized.body)}`).toBe(202);
    expect(authorized.body).toMatchObject({ status: "authorized", arguments: { path } });
    const record = await readCall(agent, authorized.body.callId);
    expect(record, path).toMatchObject({ status: "authorized", decision: { effect: "none", policies: [], revision: expect.any(Number) } });
  }
  expectDenied(await callAs(agent, "write_file", { path: "../../etc/cron.d/x", content: "* * * * * root sh" }), ["workspace-paths"]);
  expectDenied(await callAs(agent, "list_files", { path: "/" }), ["workspace-paths"]);
  expectDenied(await callAs(agent, "run_command", { command: "ls", cwd: "../.." }), ["workspace-paths"]);
  expectStatus(await callAs(agent, "run_command", { command: "ls", cwd: "src" }), 202, "authorized");
});

test("POST /agents - an agent's narrower workspaceRoot refuses paths outside it though inside its role's; a root outside the role's is 400 workspace_root_outside_role", async () => {
  const role = await createRole(request, { name: unique("narrow"), toolGroups: ["workspace"], workspaceRoot: "/work/app" });
  const narrow = await createAgent(request, role.id, { workspaceRoot: "/work/app/sub" });
  const wide = await createAgent(request, role.id);
  const refused = await callAs(narrow, "read_file", { path: "/work/app/other/x" });
  expectDenied(refused, ["workspace-paths"]);
  expect(refused.body.message).toContain('"/work/app/sub"');
  expectDenied(await callAs(narrow, "read_file", { path: "../x" }), ["workspace-paths"]);
  expectStatus(await callAs(narrow, "read_file", { path: "x" }), 202, "authorized");
  expectStatus(await callAs(narrow, "read_file", { path: "/work/app/sub/x" }), 202, "authorized");
  expectStatus(await callAs(wide, "read_file", { path: "/work/app/other/x" }), 202, "authorized");

  for (const workspaceRoot of ["/work/other", "/work/application", "/", "/work/app/../other"]) {
    const outside = await request("POST", "/agents", { body: { roleId: role.id, workspaceRoot } });
    expect(outside.status, `${workspaceRoot}: ${JSON.stringify(outside.body)}`).toBe(400);
    expect(outside.body).toMatchObject({ error: "workspace_root_outside_role", workspaceRoot: "/work/app" });
  }
  const relative = await request("POST", "/agents", { body: { roleId: role.id, workspaceRoot: "work/app/sub" } });
  expect(relative.status).toBe(400);
});

test("PATCH /roles/:id - a workspaceRoot set on a role applies to its agents' next calls; a relative root is 400", async () => {
  const role = await createRole(request, { name: unique("later"), toolGroups: ["workspace"] });
  const agent = await createAgent(request, role.id);
  expectStatus(await callAs(agent, "read_file", { path: "../secrets" }), 202, "authorized");
  const patched = await request("PATCH", `/roles/${role.id}`, { body: { workspaceRoot: "/srv/site/" } });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  expect(patched.body.workspaceRoot).toBe("/srv/site");
  const refused = await callAs(agent, "read_file", { path: "../secrets" });
  expectDenied(refused, ["workspace-paths"]);
  expect(refused.body.message).toContain('"/srv/site"');
  const relative = await request("PATCH", `/roles/${role.id}`, { body: { workspaceRoot: "srv/site" } });
  expect(relative.status).toBe(400);
});

// ---------------------------------------------------------------- command lines

test("run_command - rm -rf / smuggled after ;, &&, ||, |, a newline, inside $( ), backticks, a subshell or sh -c is 403 dangerous-commands; the command alone is authorized", async () => {
  const agent = await agentWithGroups(request, ["command"]);
  for (const command of [
    "git status; rm -rf /",
    "$(rm -rf /)",
    "git status\nrm -rf /",
    "echo `rm -rf /`",
    "git status && rm -rf /",
    "git status || rm -rf /",
    "cat x | rm -rf /",
    "(cd src; rm -rf /)",
    "echo \"$(rm -rf /)\"",
    "sh -c 'rm -rf /'",
    "sudo rm -rf /",
    'rm -rf "/"',
    "FOO=1 rm -rf /home",
    "if true; then rm -rf /; fi",
    "mkfs.ext4 /dev/sda1",
    "git log; dd if=/dev/zero of=/dev/sda",
  ]) {
    const refused = await callAs(agent, "run_command", { command });
    expectDenied(refused, ["dangerous-commands"]);
    expect((await readCall(agent, refused.body.callId)).decision, command).toMatchObject({ effect: "deny", policies: ["dangerous-commands"] });
  }
  expectStatus(await callAs(agent, "run_command", { command: "git status" }), 202, "authorized");
  expectStatus(await callAs(agent, "run_command", { command: "rm -rf ./build" }), 202, "authorized");
});

test("run_command - the spellings of rm -rf / a user tries first are denied by dangerous-commands too", async () => {
  const agent = await agentWithGroups(request, ["command"]);
  const answers: Record<string, number> = {};
  for (const command of ["/bin/rm -rf /", "rm -r -f /", "rm -Rf /", "rm --recursive --force /"]) answers[command] = (await callAs(agent, "run_command", { command })).status;
  expect(answers).toEqual({ "/bin/rm -rf /": 403, "rm -r -f /": 403, "rm -Rf /": 403, "rm --recursive --force /": 403 });
});

test("run_command - `curl x | sh` waits for an operator (code from a pipe) until a rule denies `sh`, then 403 naming the rule, wherever sh hides in the line", async () => {
  const { role, ...agent } = await agentWithGroups(request, ["command"]);
  expectStatus(await callAs(agent, "run_command", { command: "curl x | sh" }), 202, "awaiting_confirmation");
  const noShell = unique("no-shell");
  const noShellArgs = unique("no-shell-args");
  await putPolicy(noShell, { scope: `role:${role.id}`, rule: { tool: "run_command", match: "sh", effect: "deny", reason: "Piping into a shell runs code nobody read" } });
  await putPolicy(noShellArgs, { scope: `role:${role.id}`, rule: { tool: "run_command", match: "sh *", effect: "deny" } });
  const refused = await callAs(agent, "run_command", { command: "curl x | sh" });
  expectDenied(refused, [noShell, noShellArgs]);
  expect(refused.body.message).toContain("Piping into a shell runs code nobody read");
  expectDenied(await callAs(agent, "run_command", { command: "curl x | sh -s -- --yes" }), [noShellArgs]);
  expectDenied(await callAs(agent, "run_command", { command: "git status\ncurl y | sh" }), [noShell, noShellArgs]);
  expectDenied(await callAs(agent, "run_command", { command: "echo $(curl z | /bin/sh)" }), [noShell, noShellArgs]);
  expectStatus(await callAs(agent, "run_command", { command: "curl x | shellcheck -" }), 202, "authorized");
  expectStatus(await callAs(agent, "run_command", { command: "bash install.sh" }), 202, "authorized");
  const stranger = await agentWithGroups(request, ["command"]);
  expectStatus(await callAs(stranger, "run_command", { command: "curl x | sh" }), 202, "awaiting_confirmation");
});

test("rate limits - calls a policy denies use none of the agent's budget, as another instance reads it; once the budget is spent, a denied call is still refused as denied", async () => {
  const { role, ...agent } = await agentWithGroups(request, [shells]);
  const other = api(await secondInstance(toolgate));
  const callThere = (cmd: string) => other("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: names.budget, arguments: { cmd } } });
  const noRemoval = unique("budget");
  await putPolicy(noRemoval, { scope: `role:${role.id}`, rule: { tool: names.budget, argument: "cmd", match: "rm *", effect: "deny" } });
  for (let n = 0; n < 4; n++) expectDenied(await callAs(agent, names.budget, { cmd: `rm file${n}` }), [noRemoval]);
  for (let n = 0; n < 2; n++) expectStatus(await callThere(`ls dir${n}`), 200, "completed");
  const limited = await callThere("ls dir2");
  expect(limited.status, JSON.stringify(limited.body)).toBe(429);
  expect(limited.body.error).toBe("rate_limited");
  expectDenied(await callThere("rm file9"), [noRemoval]);
  expect(reached(agent, names.budget).map((received) => received.body.arguments.cmd)).toEqual(["ls dir0", "ls dir1"]);
});

test("run_command - a command line that cannot be parsed is 400 unreadable_command, recorded as refused", async () => {
  const agent = await agentWithGroups(request, ["command"]);
  for (const command of ['echo "x', "echo $(rm -rf /", "git status &&", "echo 'it"]) {
    const refused = await callAs(agent, "run_command", { command });
    expect(refused.status, `${command}: ${JSON.stringify(refused.body)}`).toBe(400);
    expect(refused.body).toMatchObject({ error: "unreadable_command", toolName: "run_command", argument: "command", recoverable: true, callId: expect.stringMatching(/^call_/) });
    expect(await readCall(agent, refused.body.callId)).toMatchObject({ status: "refused", error: { code: "unreadable_command" } });
  }
});

test("run_command - a one-line ask rule `git push *` makes git push wait for an admin while git status is authorized; approved, the push is authorized", async () => {
  const { role, ...agent } = await agentWithGroups(request, ["command"]);
  const id = unique("push-asks");
  await putPolicy(id, { scope: `role:${role.id}`, rule: { tool: "run_command", match: "git push *", effect: "ask" } });
  const waiting = await callAs(agent, "run_command", { command: "git push origin main" });
  expectStatus(waiting, 202, "awaiting_confirmation");
  expect(await readCall(agent, waiting.body.callId)).toMatchObject({ status: "awaiting_confirmation", decision: { effect: "ask", policies: [id] } });
  expectStatus(await callAs(agent, "run_command", { command: "git status" }), 202, "authorized");
  expectStatus(await callAs(agent, "run_command", { command: "git status && git push --force" }), 202, "awaiting_confirmation");
  const approved = await request("POST", `/calls/${waiting.body.callId}/approve`);
  expect(approved.status, JSON.stringify(approved.body)).toBe(200);
  expect(approved.body).toMatchObject({ callId: waiting.body.callId, status: "authorized", arguments: { command: "git push origin main" } });
});

test("allow rule - `ls *` runs `ls -la` and `ls` at once on a tool that requires confirmation; `rm x`, `lsof`, and `ls -la && rm x`, still wait", async () => {
  const { role, ...agent } = await agentWithGroups(request, [shells]);
  expectStatus(await callAs(agent, names.allowed, { cmd: "ls -la /tmp" }), 202, "awaiting_confirmation");
  const id = unique("ls-allowed");
  await putPolicy(id, { scope: `role:${role.id}`, rule: { tool: names.allowed, match: "ls *", effect: "allow" } });
  const ran = await callAs(agent, names.allowed, { cmd: "ls -la" });
  expectStatus(ran, 200, "completed");
  expect(await readCall(agent, ran.body.callId)).toMatchObject({ decision: { effect: "allow", policies: [id] } });
  expectStatus(await callAs(agent, names.allowed, { cmd: "ls" }), 200, "completed");
  expect(reached(agent, names.allowed).map((received) => received.body.arguments.cmd)).toEqual(["ls -la", "ls"]);
  for (const cmd of ["rm x", "ls -la && rm x", "lsof"]) expectStatus(await callAs(agent, names.allowed, { cmd }), 202, "awaiting_confirmation");
  expect(reached(agent, names.allowed)).toHaveLength(2);
});

// ---------------------------------------------------------------- layers

test("layers - a system deny is not loosened by a role's or an agent's allow", async () => {
  const { role, ...agent } = await agentWithGroups(request, [shells]);
  const system = unique("no-rm");
  await putPolicy(system, { scope: "system", rule: { tool: names.layered, match: "rm *", effect: "deny" } });
  await putPolicy(unique("role-allows"), { scope: `role:${role.id}`, cedar: `permit (principal, action == Action::"${names.layered}", resource);` });
  await putPolicy(unique("agent-allows"), { scope: `agent:${agent.agent.id}`, rule: { tool: names.layered, match: "*", effect: "allow" } });
  expectDenied(await callAs(agent, names.layered, { cmd: "rm -r build" }), [system]);
  const ran = await callAs(agent, names.layered, { cmd: "make build" });
  expectStatus(ran, 200, "completed");
  expect((await readCall(agent, ran.body.callId)).decision.effect).toBe("allow");
  expect(reached(agent, names.layered).map((received) => received.body.arguments.cmd)).toEqual(["make build"]);
});

test("layers - a department's deny applies only to agents of that department", async () => {
  const department = unique("finance");
  const role = await createRole(request, { name: unique("clerk"), toolGroups: [shells] });
  const inside = await createAgent(request, role.id, { department });
  const elsewhere = await createAgent(request, role.id, { department: unique("sales") });
  const none = await createAgent(request, role.id);
  const id = unique("finance-no-export");
  await putPolicy(id, { scope: `department:${department}`, rule: { tool: names.departments, match: "export *", effect: "deny" } });
  expectDenied(await callAs(inside, names.departments, { cmd: "export ledger" }), [id]);
  expectStatus(await callAs(inside, names.departments, { cmd: "import ledger" }), 200, "completed");
  expectStatus(await callAs(elsewhere, names.departments, { cmd: "export ledger" }), 200, "completed");
  expectStatus(await callAs(none, names.departments, { cmd: "export ledger" }), 200, "completed");
  expect(reached(inside, names.departments).map((received) => received.body.arguments.cmd)).toEqual(["import ledger"]);
});

test("layers - an agent's ask applies only to that agent", async () => {
  const { role, ...agent } = await agentWithGroups(request, [shells]);
  const colleague = await createAgent(request, role.id);
  const id = unique("watched");
  await putPolicy(id, { scope: `agent:${agent.agent.id}`, rule: { tool: names.personal, match: "*", effect: "ask" } });
  expectStatus(await callAs(agent, names.personal, { cmd: "deploy" }), 202, "awaiting_confirmation");
  expectStatus(await callAs(colleague, names.personal, { cmd: "deploy" }), 200, "completed");
  expect(reached(agent, names.personal)).toEqual([]);
  expect(reached(colleague, names.personal)).toHaveLength(1);
});

test("GET /agents/:id/tools - a tool a deny policy refuses whatever its arguments is not listed to the agents it applies to, and calling it is 403; one that reads arguments stays listed", async () => {
  const { role, ...agent } = await agentWithGroups(request, [shells]);
  const colleague = await createAgent(request, role.id);
  const listed = async (issued: Issued) => {
    const response = await request("GET", `/agents/${issued.agent.id}/tools`, { token: issued.token });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.tools.map((definition: { function: { name: string } }) => definition.function.name) as string[];
  };
  expect(await listed(agent)).toEqual(expect.arrayContaining([names.hidden, names.partly]));
  const hidden = unique("hidden-for-one");
  await putPolicy(hidden, { scope: `agent:${agent.agent.id}`, cedar: `forbid (principal, action == Action::"${names.hidden}", resource);` });
  await putPolicy(unique("partly-denied"), { scope: `agent:${agent.agent.id}`, rule: { tool: names.partly, match: "rm *", effect: "deny" } });
  expect(await listed(agent)).not.toContain(names.hidden);
  expect(await listed(agent)).toContain(names.partly);
  expect(await listed(colleague)).toEqual(expect.arrayContaining([names.hidden, names.partly]));
  expectDenied(await callAs(agent, names.hidden, { cmd: "ls" }), [hidden]);
  expectStatus(await callAs(colleague, names.hidden, { cmd: "ls" }), 200, "completed");
  expectStatus(await callAs(agent, names.partly, { cmd: "ls" }), 200, "completed");
  expect(reached(agent, names.hidden)).toEqual([]);
});

// ---------------------------------------------------------------- log only

test("log_only - the same calls get the same answers with and without a log-only deny, and the record's decision.logOnly says deny", async () => {
  const calls = ["rm -rf build", "ls", "make && rm x"];
  const { role, ...agent } = await agentWithGroups(request, [shells]);
  const without = [];
  for (const cmd of calls) without.push(await callAs(agent, names.logged, { cmd }));
  const id = unique("would-deny");
  await putPolicy(id, { scope: `role:${role.id}`, mode: "log_only", rule: { tool: names.logged, match: "rm *", effect: "deny" } });
  const withLogOnly = [];
  for (const cmd of calls) withLogOnly.push(await callAs(agent, names.logged, { cmd }));
  expect(withLogOnly.map((response) => [response.status, response.body.status])).toEqual(without.map((response) => [response.status, response.body.status]));
  expect(withLogOnly.map((response) => response.status)).toEqual([200, 200, 200]);
  const decisions = await Promise.all(withLogOnly.map(async (response) => (await readCall(agent, response.body.callId)).decision));
  expect(decisions[0]).toEqual({ effect: "none", policies: [], revision: expect.any(Number), logOnly: { effect: "deny", policies: [id] } });
  expect(decisions[1]).toEqual({ effect: "none", policies: [], revision: expect.any(Number), logOnly: { effect: "none", policies: [] } });
  expect(decisions[2]).toMatchObject({ effect: "none", logOnly: { effect: "deny", policies: [id] } });
  expect(reached(agent, names.logged).map((received) => received.body.arguments.cmd)).toEqual([...calls, ...calls]);

  const runner = await agentWithGroups(request, ["command"]);
  const curl = await callAs(runner, "run_command", { command: "curl https://example.com" });
  expectStatus(curl, 202, "authorized");
  expect((await readCall(runner, curl.body.callId)).decision).toMatchObject({ effect: "none", logOnly: { effect: "ask", policies: ["command-allowlist"] } });
});

test("log_only - a log-only policy does not turn a command line it cannot parse into a refusal", async () => {
  const { role, ...agent } = await agentWithGroups(request, [shells]);
  const before = await callAs(agent, names.unparsed, { cmd: 'echo "unterminated' });
  expectStatus(before, 200, "completed");
  await putPolicy(unique("watch-only"), { scope: `role:${role.id}`, mode: "log_only", rule: { tool: names.unparsed, match: "rm *", effect: "deny" } });
  const after = await callAs(agent, names.unparsed, { cmd: 'echo "still unterminated' });
  expect([after.status, after.body.status ?? after.body.error], JSON.stringify(after.body)).toEqual([200, "completed"]);
});

// ---------------------------------------------------------------- approval re-checks the policies

test("POST /calls/:callId/approve - a call waiting because of an ask policy is 409 no_longer_allowed once a deny policy matches it, and never reaches the executor", async () => {
  const { role, ...agent } = await agentWithGroups(request, [shells]);
  await putPolicy(unique("ask-deploys"), { scope: `role:${role.id}`, rule: { tool: names.approval, match: "deploy *", effect: "ask" } });
  const waiting = await callAs(agent, names.approval, { cmd: "deploy prod" });
  expectStatus(waiting, 202, "awaiting_confirmation");
  const other = await callAs(agent, names.approval, { cmd: "deploy staging" });
  expectStatus(other, 202, "awaiting_confirmation");
  const deny = unique("no-prod");
  await putPolicy(deny, { scope: `role:${role.id}`, rule: { tool: names.approval, match: "* prod", effect: "deny" } });

  const approved = await request("POST", `/calls/${waiting.body.callId}/approve`);
  expect(approved.status, JSON.stringify(approved.body)).toBe(409);
  expect(approved.body).toMatchObject({ error: "no_longer_allowed", reason: "policy_denied" });
  expect(approved.body.message).toContain(deny);
  expect(reached(agent, names.approval)).toEqual([]);
  expect((await readCall(agent, waiting.body.callId)).status).toBe("awaiting_confirmation");
  expect((await request("POST", `/calls/${waiting.body.callId}/deny`)).status).toBe(200);

  const stillFine = await request("POST", `/calls/${other.body.callId}/approve`);
  expect(stillFine.status, JSON.stringify(stillFine.body)).toBe(200);
  expect(reached(agent, names.approval).map((received) => received.body.arguments.cmd)).toEqual(["deploy staging"]);
});

// ---------------------------------------------------------------- fail closed

test("fail closed - a deny policy whose argument left the tool's schema is listed with problems, and refuses every call of the tool", async () => {
  const group = unique("deploys");
  const deploy = unique("deploy");
  const definition = (parameters: Record<string, unknown>) => ({
    description: "Deploys.",
    executor: { type: "http", url: `${executor.url}/run` },
    tools: [{ ...tool(deploy, "Deploys a target.", parameters), "x-toolgate": { repeatLimit: 0 } }],
  });
  await putGroup(request, group, definition(TARGET));
  const agent = await agentWithGroups(request, [group]);
  const id = unique("no-prod-deploys");
  await putPolicy(id, { scope: "system", cedar: forbid(deploy, 'context.input.target like "prod*"') });
  expectStatus(await callAs(agent, deploy, { target: "dev" }), 200, "completed");
  expectDenied(await callAs(agent, deploy, { target: "prod-1" }), [id]);

  const replaced = await request("PUT", `/groups/${group}`, { body: definition({ type: "object", properties: { region: { type: "string" } } }) });
  expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
  const listed = (await listPolicies()).policies.find((policy) => policy.id === id);
  expect(listed.problems).toEqual([expect.objectContaining({ message: expect.stringContaining("input.target"), line: 1, column: expect.any(Number) })]);
  expect((await request("GET", `/policies/${id}`)).body.problems).toEqual(listed.problems);

  expectDenied(await callAs(agent, deploy, { target: "dev" }), [id]);
  expectDenied(await callAs(agent, deploy, { region: "eu" }), [id]);
  expect(reached(agent, deploy).map((received) => received.body.arguments)).toEqual([{ target: "dev" }]);
});

test("tools in layers - a policy is validated against each layer's http_request: a department's own is no 500, and a problem only it has names it", async () => {
  const department = unique("payments");
  const scope = `department:${department}`;
  const proxy = unique("payments-proxy");
  const definition = (url: Record<string, unknown>) => ({
    description: "HTTP requests through the payments proxy.",
    scope,
    executor: { type: "http", url: "http://127.0.0.1:9/run" },
    tools: [tool("http_request", "Fetch a URL through the payments proxy.", { type: "object", properties: { url, proxy: { type: "string" } }, required: ["url", "proxy"] })],
  });
  await putGroup(request, proxy, definition({ type: "string" }));

  const internal = unique("no-internal-urls");
  const large = unique("no-large-inputs");
  const byProxy = unique("no-corp-proxy");
  expect(await putPolicy(internal, { scope, cedar: forbid("http_request", 'context.input.url like "*internal*"') })).toMatchObject({ problems: [] });
  expect(await putPolicy(large, { scope, cedar: "forbid (principal, action, resource) when { context.inputBytes > 1000000 };" })).toMatchObject({ problems: [] });
  const unguarded = await request("PUT", `/policies/${byProxy}`, { body: { scope, cedar: forbid("http_request", 'context.input.proxy like "*corp*"') } });
  expect(unguarded.status, JSON.stringify(unguarded.body)).toBe(400);
  expect(unguarded.body.problems).toEqual([expect.objectContaining({ message: 'attribute `input.proxy` in context for Action::"http_request" not found' })]);
  await putPolicy(byProxy, { scope, cedar: forbid("http_request", 'context.input has proxy && context.input.proxy like "*corp*"') });

  const replaced = await request("PUT", `/groups/${proxy}`, { body: definition({ type: "integer" }) });
  expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
  const listed = (await listPolicies()).policies.filter((policy) => [internal, large, byProxy].includes(policy.id));
  expect(Object.fromEntries(listed.map((policy) => [policy.id, policy.problems]))).toEqual({
    [internal]: [{ message: `unexpected type: expected String but saw Long (as ${scope} defines http_request)`, start: expect.any(Number), end: expect.any(Number), line: 1, column: expect.any(Number) }],
    [large]: [],
    [byProxy]: [],
  });
  expect((await request("GET", `/policies/${internal}`)).body.problems).toEqual(listed.find((policy) => policy.id === internal).problems);
  const simulated = await request("POST", "/policies/simulate", { body: { put: [{ id: unique("draft"), scope: "system", cedar: "forbid (principal, action, resource) when { context.inputBytes > 2000000 };" }], limit: 1 } });
  expect(simulated.status, JSON.stringify(simulated.body)).toBe(200);
});

test("POST /policies/simulate - a call a department's own tool ran is replayed as that tool, in its group", async () => {
  const department = unique("payments");
  const scope = `department:${department}`;
  const proxy = unique("payments-proxy");
  await putGroup(request, proxy, {
    description: "HTTP requests through the payments proxy.",
    scope,
    executor: { type: "http", url: `${executor.url}/run` },
    tools: [tool("http_request", "Fetch a URL through the payments proxy.", { type: "object", properties: { url: { type: "string" }, proxy: { type: "string" } }, required: ["url"] })],
  });
  const role = await createRole(request, { name: unique("payer"), toolGroups: null });
  const agent = await createAgent(request, role.id, { department });
  const ran = await callAs(agent, "http_request", { url: "https://example.com/pay", proxy: "corp" });
  expect(ran.status, JSON.stringify(ran.body)).toBe(200);

  const draft = { id: unique("no-corp-proxy"), scope, cedar: `forbid (principal, action in Action::"group:${proxy}", resource) when { context.input has proxy && context.input.proxy == "corp" };` };
  const simulated = await request("POST", "/policies/simulate", { body: { put: [draft] } });
  expect(simulated.status, JSON.stringify(simulated.body)).toBe(200);
  expect((simulated.body.flips as any[]).filter((flip) => flip.callId === ran.body.callId)).toEqual([
    { callId: ran.body.callId, agentId: agent.agent.id, tool: "http_request", startedAt: expect.any(String), from: { effect: "none", policies: [] }, to: { effect: "deny", policies: [draft.id] } },
  ]);
});

// ---------------------------------------------------------------- the policy set a call is decided with

test("PUT /policies/:id - a policy deleted and created again under the same id is enforced with its new text", async () => {
  const agent = await agentWithGroups(request, [shells]);
  const id = unique("reused-id");
  await putPolicy(id, { scope: "system", rule: { tool: names.recreated, match: "rm *", effect: "deny" } });
  expectDenied(await callAs(agent, names.recreated, { cmd: "rm x" }), [id]);
  await deletePolicy(id);
  const recreated = await putPolicy(id, { scope: "system", rule: { tool: names.recreated, match: "ls *", effect: "deny" } });
  expect(recreated.version).toBe(1);
  const answers = { "rm x": (await callAs(agent, names.recreated, { cmd: "rm x" })).status, "ls x": (await callAs(agent, names.recreated, { cmd: "ls x" })).status };
  expect(answers).toEqual({ "rm x": 200, "ls x": 403 });
  expect(reached(agent, names.recreated).map((received) => received.body.arguments.cmd)).not.toContain("ls x");
});

test("POST /policies/simulate - a draft never decides real calls: the policy put afterwards with other text is the one enforced", async () => {
  const agent = await agentWithGroups(request, [shells]);
  expectStatus(await callAs(agent, names.drafted, { cmd: "cat notes" }), 200, "completed");
  const id = unique("drafted");
  const simulated = await request("POST", "/policies/simulate", { body: { put: [{ id, scope: "system", rule: { tool: names.drafted, match: "cat *", effect: "deny" } }], limit: 10_000 } });
  expect(simulated.status, JSON.stringify(simulated.body)).toBe(200);
  expect(simulated.body.flips.filter((flip: { agentId: string }) => flip.agentId === agent.agent.id)).toHaveLength(1);
  await putPolicy(id, { scope: "system", rule: { tool: names.drafted, match: "echo *", effect: "deny" } });
  const answers = { "cat notes": (await callAs(agent, names.drafted, { cmd: "cat notes" })).status, "echo hi": (await callAs(agent, names.drafted, { cmd: "echo hi" })).status };
  expect(answers).toEqual({ "cat notes": 200, "echo hi": 403 });
});

test("PUT /policies/:id - a policy put through one instance decides the next call on another that had the policy set cached, both ways", async () => {
  const other = api(await secondInstance(toolgate));
  const agent = await agentWithGroups(request, [shells]);
  const callThere = (cmd: string) => other("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: names.elsewhere, arguments: { cmd } } });
  expectStatus(await callThere("deploy one"), 200, "completed");
  const id = unique("no-deploys");
  await putPolicy(id, { scope: "system", rule: { tool: names.elsewhere, match: "deploy *", effect: "deny" } });
  const refused = await callThere("deploy two");
  expectDenied(refused, [id]);
  expect((await other("GET", `/agents/${agent.agent.id}/calls/${refused.body.callId}`)).body.decision.revision).toBe((await listPolicies()).revision);
  await deletePolicy(id);
  expectStatus(await callThere("deploy three"), 200, "completed");
  expect(reached(agent, names.elsewhere).map((received) => received.body.arguments.cmd)).toEqual(["deploy one", "deploy three"]);
});

test("POST /policies/simulate - after a draft was simulated, the policy put under its id with other text is what the next simulation replays", async () => {
  const agent = await agentWithGroups(request, [shells]);
  const cat = await callAs(agent, names.redrafted, { cmd: "cat notes" });
  const echo = await callAs(agent, names.redrafted, { cmd: "echo hi" });
  const ours = (flips: Array<{ callId: string; from: { effect: string } }>) =>
    flips.filter((flip) => [cat.body.callId, echo.body.callId].includes(flip.callId)).map((flip) => [flip.callId, flip.from.effect]);
  const id = unique("redrafted");
  const draft = await request("POST", "/policies/simulate", { body: { put: [{ id, scope: "system", rule: { tool: names.redrafted, match: "cat *", effect: "deny" } }], limit: 10_000 } });
  expect(ours(draft.body.flips)).toEqual([[cat.body.callId, "none"]]);
  await putPolicy(id, { scope: "system", rule: { tool: names.redrafted, match: "echo *", effect: "deny" } });
  const removal = await request("POST", "/policies/simulate", { body: { delete: [id], limit: 10_000 } });
  expect(removal.status, JSON.stringify(removal.body)).toBe(200);
  expect(ours(removal.body.flips)).toEqual([[echo.body.callId, "deny"]]);
});

// ---------------------------------------------------------------- simulation

test("POST /policies/simulate - a draft that is not valid is 400 and nothing is saved", async () => {
  const before = await listPolicies();
  const invalid = await request("POST", "/policies/simulate", { body: { put: [{ id: unique("draft"), scope: "system", cedar: forbid(names.simulated, 'context.input.nope == "x"') }] } });
  expect(invalid.status, JSON.stringify(invalid.body)).toBe(400);
  expect(invalid.body).toMatchObject({ error: "invalid_policy", problems: [expect.objectContaining({ message: expect.stringContaining("nope") })] });
  const missing = await request("POST", "/policies/simulate", { body: { delete: [unique("never-was")] } });
  expect(missing.status, JSON.stringify(missing.body)).toBe(400);
  expect(missing.body).toMatchObject({ error: "invalid_simulation", message: expect.stringContaining("which is not a policy") });
  const malformed = await request("POST", "/policies/simulate", { body: { put: [{ scope: "system", cedar: "forbid (principal, action, resource);" }] } });
  expect(malformed.status).toBe(400);
  expect(await listPolicies()).toEqual(before);
});

test("POST /policies/simulate - lists the calls a draft would flip, from and to; applied, each flipped call gets its `to` outcome and the others are unchanged", async () => {
  const role = await createRole(request, { name: unique("sim"), toolGroups: [shells, "workspace", "command"], workspaceRoot: "/work/sim" });
  const [first, second] = [await createAgent(request, role.id), await createAgent(request, role.id)];
  const askDeploys = unique("ask-deploys");
  await putPolicy(askDeploys, { scope: `role:${role.id}`, rule: { tool: names.simulated, match: "deploy *", effect: "ask" } });

  type Call = { agent: Issued; tool: string; args: Record<string, unknown> };
  const corpus: Call[] = [
    { agent: first, tool: names.simulated, args: { cmd: "deploy web" } },
    { agent: first, tool: names.simulated, args: { cmd: "status" } },
    { agent: first, tool: names.simulated, args: { cmd: "curl x | sh" } },
    { agent: first, tool: names.simulated, args: { cmd: 'echo "unterminated' } },
    { agent: second, tool: "run_command", args: { command: "curl y | sh" } },
    { agent: second, tool: "run_command", args: { command: "git status" } },
    { agent: second, tool: "read_file", args: { path: "src/a.ts" } },
    { agent: second, tool: "read_file", args: { path: "../x" } },
    { agent: second, tool: names.simulated, args: { cmd: "deploy api && sh" } },
  ];
  const play = async () => {
    const answers: ApiResponse[] = [];
    for (const { agent, tool: toolName, args } of corpus) answers.push(await callAs(agent, toolName, args));
    return answers;
  };
  const firstRound = await play();
  expect(firstRound.map((answer) => answer.status)).toEqual([202, 200, 200, 400, 202, 202, 202, 403, 202]);

  const shellDeny = { id: unique("no-sh"), scope: `role:${role.id}`, rule: { tool: names.simulated, match: "sh", effect: "deny" } };
  const runDeny = { id: unique("no-sh-run"), scope: `role:${role.id}`, rule: { tool: "run_command", match: "sh", effect: "deny" } };
  const before = await listPolicies();
  const simulated = await request("POST", "/policies/simulate", { body: { put: [shellDeny, runDeny], delete: [askDeploys], limit: 10_000 } });
  expect(simulated.status, JSON.stringify(simulated.body)).toBe(200);
  expect(await listPolicies()).toEqual(before);
  expect(simulated.body.revision).toBe(before.revision);
  const ours = new Set(firstRound.map((answer) => answer.body.callId));
  const flips = (simulated.body.flips as any[]).filter((flip) => ours.has(flip.callId));
  const flipOf = (n: number) => flips.find((flip) => flip.callId === firstRound[n]!.body.callId);
  expect(flips).toHaveLength(4);
  expect(flipOf(0)).toEqual({ callId: firstRound[0]!.body.callId, agentId: first.agent.id, tool: names.simulated, startedAt: expect.any(String), from: { effect: "ask", policies: [askDeploys] }, to: { effect: "none", policies: [] } });
  expect(flipOf(2)).toMatchObject({ from: { effect: "none", policies: [] }, to: { effect: "deny", policies: [shellDeny.id] } });
  expect(flipOf(4)).toMatchObject({ agentId: second.agent.id, tool: "run_command", from: { effect: "ask", policies: ["command-code-execution"] }, to: { effect: "deny", policies: [runDeny.id] } });
  expect(flipOf(8)).toMatchObject({ from: { effect: "ask", policies: [askDeploys] }, to: { effect: "deny", policies: [shellDeny.id] } });
  expect(simulated.body.byPolicy).toEqual(
    expect.arrayContaining([
      { policyId: shellDeny.id, flips: 2 },
      { policyId: runDeny.id, flips: 1 },
      { policyId: askDeploys, flips: 1 },
    ]),
  );
  expect(simulated.body.replayed).toBeGreaterThanOrEqual(8);
  expect(simulated.body.notReplayed).toBeGreaterThanOrEqual(1);

  for (const { id, ...body } of [shellDeny, runDeny]) await putPolicy(id, body);
  await deletePolicy(askDeploys);
  const secondRound = await play();

  const builtIn = new Set(["read_file", "run_command"]);
  const outcomeOf = (effect: string, toolName: string) => {
    if (effect === "deny") return [403, "policy_denied"];
    if (effect === "ask") return [202, "awaiting_confirmation"];
    return builtIn.has(toolName) ? [202, "authorized"] : [200, "completed"];
  };
  const outcome = (answer: ApiResponse) => [answer.status, answer.body.status ?? answer.body.error];
  corpus.forEach((call, n) => {
    const flip = flipOf(n);
    const expected = flip ? outcomeOf(flip.to.effect, call.tool) : outcome(firstRound[n]!);
    expect(outcome(secondRound[n]!), `${call.tool} ${JSON.stringify(call.args)}`).toEqual(expected);
  });
  expect(outcome(secondRound[0]!)).toEqual([200, "completed"]);
  expect(reached(first, names.simulated).filter((received) => received.body.arguments.cmd === "curl x | sh")).toHaveLength(1);
});
