import fc from "fast-check";
import { afterAll, beforeAll, expect, test } from "vitest";
import { agentOn, callTool, expectRefused, guarded, httpGroup, policyTool, unique } from "./helpers";
import type { AgentHandle, Guarded } from "./helpers";
import { secondInstance } from "../integration/helpers";
import { api } from "../support/toolgate";
import type { Api } from "../support/toolgate";

// "Visible means callable": GET /agents/:id/tools lists exactly the tools the agent could call now.

let g: Guarded;

beforeAll(async () => {
  g = await guarded();
});

afterAll(async () => {
  await g?.close();
});

/** The names GET /agents/:id/tools lists, read with the agent's own token or the admin token; each appears once. */
async function listed(request: Api, agent: AgentHandle, as: "self" | "admin" = "self"): Promise<string[]> {
  const response = await request("GET", `/agents/${agent.agent.id}/tools`, as === "self" ? { token: agent.token } : {});
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.body.agentId).toBe(agent.agent.id);
  const names = (response.body.tools as Array<{ type: string; function: { name: string } }>).map((t) => t.function.name);
  expect(new Set(names).size, `each tool once: ${names.join(", ")}`).toBe(names.length);
  for (const t of response.body.tools) expect(t).not.toHaveProperty("x-toolgate");
  return names;
}

/** Both views (own token, admin token) agree; returns whether the tool is in them. */
async function isListed(request: Api, agent: AgentHandle, toolName: string): Promise<boolean> {
  const [own, admin] = await Promise.all([listed(request, agent, "self"), listed(request, agent, "admin")]);
  expect(admin, "the admin sees the same list as the agent").toEqual(own);
  return own.includes(toolName);
}

async function expectCompleted(request: Api, agent: AgentHandle, toolName: string, args: Record<string, unknown> = {}) {
  const response = await callTool(request, agent, toolName, args);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.body.status).toBe("completed");
}

async function expectPermissionDenied(request: Api, agent: AgentHandle, toolName: string, reason: RegExp) {
  const response = await callTool(request, agent, toolName, { n: Math.random() });
  await expectRefused(request, agent.agent.id, response, 403, "permission_denied", false);
  expect(response.body.toolName).toBe(toolName);
  expect(response.body.reason).toEqual(expect.stringMatching(reason));
}

test("GET /agents/:id/tools - a disabled tool is not listed (own token and admin token) but calling it is still 403 tool_disabled; after enable it is listed and callable", async () => {
  const name = unique("tool");
  const sibling = unique("sibling");
  const group = await httpGroup(g.request, g.executor, [policyTool(name), policyTool(sibling)]);
  const agent = await agentOn(g.request, [group]);
  expect(await listed(g.request, agent)).toEqual([name, sibling]);

  expect((await g.request("POST", `/tools/${name}/disable`)).status).toBe(200);
  expect(await listed(g.request, agent, "self")).toEqual([sibling]);
  expect(await listed(g.request, agent, "admin")).toEqual([sibling]);
  const refused = await callTool(g.request, agent, name, { n: 1 });
  await expectRefused(g.request, agent.agent.id, refused, 403, "tool_disabled", false);
  expect(refused.body.toolName).toBe(name);
  expect(g.executor.requestsFor(name)).toHaveLength(0);

  expect((await g.request("POST", `/tools/${name}/enable`)).status).toBe(200);
  expect(await listed(g.request, agent, "self")).toEqual([name, sibling]);
  expect(await listed(g.request, agent, "admin")).toEqual([name, sibling]);
  await expectCompleted(g.request, agent, name, { n: 2 });
  expect(g.executor.requestsFor(name)).toHaveLength(1);
});

test("GET /agents/:id/tools - x-toolgate allowedRoles: the named role (in any case) lists and calls the tool; another role neither lists it nor may call it (permission_denied with a reason)", async () => {
  const roleName = unique("Auditor");
  const name = unique("tool");
  const open = unique("open");
  const group = await httpGroup(g.request, g.executor, [policyTool(name, { allowedRoles: [roleName.toLowerCase()] }), policyTool(open)]);
  const auditor = await agentOn(g.request, [group], {}, roleName.toUpperCase());
  const intern = await agentOn(g.request, [group]);

  expect(await isListed(g.request, auditor, name)).toBe(true);
  await expectCompleted(g.request, auditor, name);

  expect(await isListed(g.request, intern, name)).toBe(false);
  expect(await listed(g.request, intern)).toEqual([open]);
  await expectPermissionDenied(g.request, intern, name, new RegExp(roleName.toLowerCase()));
  expect(g.executor.requestsFor(name)).toHaveLength(1);
});

test("GET /agents/:id/tools - x-toolgate allowedDepartments: only agents created in a named department list the tool; others (another or no department) get permission_denied", async () => {
  const name = unique("tool");
  const group = await httpGroup(g.request, g.executor, [policyTool(name, { allowedDepartments: ["finance", "legal"] })]);
  const finance = await agentOn(g.request, [group], { department: "finance" });
  const sales = await agentOn(g.request, [group], { department: "sales" });
  const none = await agentOn(g.request, [group]);

  expect(await isListed(g.request, finance, name)).toBe(true);
  await expectCompleted(g.request, finance, name);
  expect(await isListed(g.request, sales, name)).toBe(false);
  await expectPermissionDenied(g.request, sales, name, /sales/);
  expect(await isListed(g.request, none, name)).toBe(false);
  await expectPermissionDenied(g.request, none, name, /not set/);
});

test("GET /agents/:id/tools - x-toolgate minLevel: agents at or above the level list the tool; below it or with no level it is not listed and permission_denied", async () => {
  const name = unique("tool");
  const group = await httpGroup(g.request, g.executor, [policyTool(name, { minLevel: 3 })]);
  const senior = await agentOn(g.request, [group], { level: 3 });
  const principal = await agentOn(g.request, [group], { level: 7 });
  const junior = await agentOn(g.request, [group], { level: 2 });
  const none = await agentOn(g.request, [group]);

  for (const agent of [senior, principal]) {
    expect(await isListed(g.request, agent, name)).toBe(true);
    await expectCompleted(g.request, agent, name);
  }
  expect(await isListed(g.request, junior, name)).toBe(false);
  await expectPermissionDenied(g.request, junior, name, /level 3/);
  expect(await isListed(g.request, none, name)).toBe(false);
  await expectPermissionDenied(g.request, none, name, /not set/);
});

test("GET /agents/:id/tools - PUT /tools/:name/policy that excludes the agent removes the tool from its list; one that admits it brings it back", async () => {
  const name = unique("tool");
  const group = await httpGroup(g.request, g.executor, [policyTool(name)]);
  const roleName = unique("Builder");
  const agent = await agentOn(g.request, [group], { department: "eng", level: 2 }, roleName);
  expect(await isListed(g.request, agent, name)).toBe(true);

  for (const policy of [{ allowedRoles: [unique("someone_else")] }, { allowedDepartments: ["ops"] }, { minLevel: 5 }]) {
    const put = await g.request("PUT", `/tools/${name}/policy`, { body: policy });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(await isListed(g.request, agent, name), JSON.stringify(policy)).toBe(false);
    await expectPermissionDenied(g.request, agent, name, /./);
  }

  for (const policy of [{ allowedRoles: [roleName.toUpperCase()] }, { allowedDepartments: ["ops", "eng"] }, { minLevel: 2 }, {}]) {
    const put = await g.request("PUT", `/tools/${name}/policy`, { body: policy });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(await isListed(g.request, agent, name), JSON.stringify(policy)).toBe(true);
    await expectCompleted(g.request, agent, name, { policy });
  }
});

test("GET /agents/:id/tools - PATCH /tools/:name/policy: a merged field that excludes the agent hides the tool; removing it with null shows it again", async () => {
  const name = unique("tool");
  const group = await httpGroup(g.request, g.executor, [policyTool(name, { allowedDepartments: ["eng"] })]);
  const agent = await agentOn(g.request, [group], { department: "eng", level: 1 });
  const outsider = await agentOn(g.request, [group], { department: "ops", level: 9 });
  expect(await isListed(g.request, agent, name)).toBe(true);
  expect(await isListed(g.request, outsider, name)).toBe(false);

  expect((await g.request("PATCH", `/tools/${name}/policy`, { body: { minLevel: 4 } })).status).toBe(200);
  expect(await isListed(g.request, agent, name)).toBe(false);
  await expectPermissionDenied(g.request, agent, name, /level 4/);
  expect(await isListed(g.request, outsider, name), "the x-toolgate department still applies under the merged override").toBe(false);
  await expectPermissionDenied(g.request, outsider, name, /ops/);

  expect((await g.request("PATCH", `/tools/${name}/policy`, { body: { allowedDepartments: ["eng", "ops"] } })).status).toBe(200);
  expect(await isListed(g.request, outsider, name)).toBe(true);
  await expectCompleted(g.request, outsider, name);
  expect(await isListed(g.request, agent, name), "minLevel 4 is still merged in").toBe(false);

  expect((await g.request("PATCH", `/tools/${name}/policy`, { body: { minLevel: null } })).status).toBe(200);
  expect(await isListed(g.request, agent, name)).toBe(true);
  await expectCompleted(g.request, agent, name);
});

// The property: for every agent and every tool in the catalog, listed ⇔ a call is not refused for access.

const ACCESS_REFUSALS = ["tool_not_available", "tool_disabled", "permission_denied", "unknown_tool"];

type Policy = { allowedRoles?: string[]; allowedDepartments?: string[]; minLevel?: number };

/** JSON Merge Patch as PATCH /tools/:name/policy documents it, for the model. */
function merge(target: Policy, patch: Record<string, unknown>): Policy {
  const next: Record<string, unknown> = { ...target };
  for (const [key, value] of Object.entries(patch)) if (value === null) delete next[key];
  else next[key] = value;
  return next as Policy;
}

/** The model of the guard's access checks, independent of the implementation. */
function admits(policy: Policy, role: string, department: string | null, level: number | null) {
  if (policy.allowedRoles?.length && !policy.allowedRoles.some((r) => r.toLowerCase() === role.toLowerCase())) return false;
  if (policy.allowedDepartments?.length && (department === null || !policy.allowedDepartments.includes(department))) return false;
  if (policy.minLevel !== undefined && (level === null || level < policy.minLevel)) return false;
  return true;
}

test("GET /agents/:id/tools - for every agent and every tool in the catalog, listed ⇔ a call is not refused with tool_not_available/tool_disabled/permission_denied/unknown_tool, across policy changes", { timeout: 240_000 }, async () => {
  const request = g.request;
  const roles = { analyst: unique("Analyst"), intern: unique("Intern"), ops: unique("Ops") };
  const base: Record<string, Policy> = {};
  const toolNames = ["plain", "by_role", "by_dept", "by_level", "mixed", "limited"].map((prefix) => unique(prefix));
  const [plain, byRole, byDept, byLevel, mixed, limited] = toolNames as [string, string, string, string, string, string];
  base[plain] = {};
  base[byRole] = { allowedRoles: [roles.analyst.toUpperCase(), roles.ops.toLowerCase()] };
  base[byDept] = { allowedDepartments: ["finance"] };
  base[byLevel] = { minLevel: 3 };
  base[mixed] = { allowedRoles: [roles.analyst], allowedDepartments: ["finance", "sales"], minLevel: 2 };
  base[limited] = {};
  const main = await httpGroup(
    request,
    g.executor,
    toolNames.map((name) => policyTool(name, name === limited ? { rateLimit: { perMinute: 1 } } : base[name])),
  );
  const side = unique("side_tool");
  const sideGroup = await httpGroup(request, g.executor, [policyTool(side)]);
  base[side] = {};
  const groupOf = (toolName: string) => (toolName === side ? sideGroup : main);

  type Member = { handle: AgentHandle; role: string; groups: string[] | null; department: string | null; level: number | null };
  const member = async (role: string, groups: string[] | null, department: string | null, level: number | null): Promise<Member> => ({
    handle: await agentOn(request, groups, { ...(department !== null ? { department } : {}), ...(level !== null ? { level } : {}) }, role),
    role,
    groups,
    department,
    level,
  });
  const agents: Member[] = [
    await member(roles.analyst.toLowerCase(), [main], "finance", 5),
    await member(roles.intern, [main], "sales", 1),
    await member(roles.ops, [main, sideGroup], null, null),
    await member(unique("everything"), null, "finance", 3),
    await member(unique("sideonly"), [sideGroup], "finance", 9),
  ];

  const catalog = await request("GET", "/groups");
  expect(catalog.status).toBe(200);
  const everyTool: string[] = catalog.body.groups.flatMap((group: { tools: string[] }) => group.tools);
  for (const name of [...toolNames, side]) expect(everyTool).toContain(name);
  expect(everyTool.length).toBeGreaterThan(toolNames.length + 1);

  const override: Record<string, Policy> = {};
  const disabled: Record<string, boolean> = {};
  const mine = [...toolNames, side];

  const policyArb = fc.record(
    {
      allowedRoles: fc.array(fc.constantFrom(roles.analyst.toUpperCase(), roles.intern.toLowerCase(), roles.ops, "nobody"), { maxLength: 2 }),
      allowedDepartments: fc.array(fc.constantFrom("finance", "sales", "legal"), { maxLength: 2 }),
      minLevel: fc.integer({ min: 0, max: 6 }),
    },
    { requiredKeys: [] },
  );
  const patchArb = fc.record(
    {
      allowedRoles: fc.option(fc.array(fc.constantFrom(roles.analyst, roles.intern.toUpperCase(), "nobody"), { maxLength: 2 }), { nil: null }),
      allowedDepartments: fc.option(fc.array(fc.constantFrom("finance", "sales"), { maxLength: 2 }), { nil: null }),
      minLevel: fc.option(fc.integer({ min: 0, max: 6 }), { nil: null }),
    },
    { requiredKeys: [] },
  );
  const changeArb = fc.oneof(
    fc.record({ kind: fc.constant("none" as const) }),
    fc.record({ kind: fc.constant("put" as const), policy: policyArb }),
    fc.record({ kind: fc.constant("patch" as const), patch: patchArb }),
    fc.record({ kind: fc.constant("disable" as const) }),
    fc.record({ kind: fc.constant("enable" as const) }),
  );

  let round = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(fc.tuple(fc.constantFrom(...mine), changeArb), { maxLength: 4 }), async (changes) => {
      round++;
      for (const [name, change] of changes) {
        if (change.kind === "none") continue;
        if (change.kind === "put") {
          const put = await request("PUT", `/tools/${name}/policy`, { body: change.policy });
          expect(put.status, JSON.stringify(put.body)).toBe(200);
          override[name] = change.policy as Policy;
        } else if (change.kind === "patch") {
          const patched = await request("PATCH", `/tools/${name}/policy`, { body: change.patch });
          expect(patched.status, JSON.stringify(patched.body)).toBe(200);
          override[name] = merge(override[name] ?? {}, change.patch);
        } else {
          expect((await request("POST", `/tools/${name}/${change.kind}`)).status).toBe(200);
          disabled[name] = change.kind === "disable";
        }
      }

      await Promise.all(
        agents.map(async (a) => {
          const own = await listed(request, a.handle, "self");
          expect(await listed(request, a.handle, "admin"), "the admin sees the agent's list").toEqual(own);

          for (const name of mine) {
            const inRole = a.groups === null || a.groups.includes(groupOf(name));
            const effective = { ...base[name], ...(override[name] ?? {}) };
            const expected = inRole && !disabled[name] && admits(effective, a.role, a.department, a.level);
            expect(own.includes(name), `model: ${name} for ${a.role} under ${JSON.stringify(effective)} disabled=${!!disabled[name]}`).toBe(expected);
          }

          for (const name of everyTool) {
            const response = await callTool(request, a.handle, name, { round, probe: name });
            const accessRefusal = response.status >= 400 && ACCESS_REFUSALS.includes(response.body?.error);
            const what = `${name} for ${a.role}: listed=${own.includes(name)}, call ${response.status} ${JSON.stringify(response.body).slice(0, 300)}`;
            expect(own.includes(name), what).toBe(!accessRefusal);
            if (mine.includes(name) && own.includes(name)) {
              if (name === limited) expect([200, 429], what).toContain(response.status);
              else {
                expect(response.status, what).toBe(200);
                expect(response.body.status, what).toBe("completed");
              }
            }
          }
        }),
      );
    }),
    { numRuns: 10 },
  );
});

test("GET /agents/:id/tools - a policy change made through one process is seen by another process's tool list (and guard) at once", async () => {
  const name = unique("tool");
  const group = await httpGroup(g.request, g.executor, [policyTool(name)]);
  const agent = await agentOn(g.request, [group], { department: "eng", level: 2 });
  const other = api(await secondInstance(g.toolgate));
  // The second process has read the catalog and served this agent's list before the change.
  expect(await isListed(other, agent, name)).toBe(true);
  await expectCompleted(other, agent, name, { before: true });

  expect((await g.request("PUT", `/tools/${name}/policy`, { body: { minLevel: 5 } })).status).toBe(200);
  expect(await isListed(other, agent, name)).toBe(false);
  await expectPermissionDenied(other, agent, name, /level 5/);

  expect((await g.request("PATCH", `/tools/${name}/policy`, { body: { minLevel: null } })).status).toBe(200);
  expect(await isListed(other, agent, name)).toBe(true);

  expect((await g.request("POST", `/tools/${name}/disable`)).status).toBe(200);
  expect(await isListed(other, agent, name)).toBe(false);
  await expectRefused(other, agent.agent.id, await callTool(other, agent, name, { disabled: true }), 403, "tool_disabled", false);

  expect((await g.request("POST", `/tools/${name}/enable`)).status).toBe(200);
  expect(await isListed(other, agent, name)).toBe(true);
  await expectCompleted(other, agent, name, { after: true });
});

test("POST /agents/:id/calls - a tool the agent's list leaves out because of its policy is refused permission_denied, one outside its role tool_not_available", async () => {
  const name = unique("tool");
  const foreign = unique("foreign");
  const group = await httpGroup(g.request, g.executor, [policyTool(name, { allowedRoles: ["nobody"] })]);
  await httpGroup(g.request, g.executor, [policyTool(foreign)]);
  const agent = await agentOn(g.request, [group]);
  expect(await listed(g.request, agent)).toEqual([]);
  await expectPermissionDenied(g.request, agent, name, /nobody/);
  const outside = await callTool(g.request, agent, foreign, {});
  await expectRefused(g.request, agent.agent.id, outside, 403, "tool_not_available", false);
});
