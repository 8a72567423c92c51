import { beforeAll, expect, test } from "vitest";
import { api, testToolgate, tool } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { createAgent, createRole, putGroup, unique } from "./helpers";

let request: Api;

beforeAll(async () => {
  request = api(await testToolgate());
});

const withPolicy = (name: string, policy: Record<string, unknown>) => ({ ...tool(name, `The ${name} tool searches things.`), "x-toolgate": policy });

test("GET /tools - lists the catalog's tools by category and tag, with their group and whether they are switched off", async () => {
  const category = unique("cat");
  const [a, b, c] = [unique("alpha"), unique("beta"), unique("gamma")];
  const group = unique("listed");
  await putGroup(request, group, {
    description: "Tools with categories.",
    tools: [withPolicy(a, { category, tags: ["red", "blue"] }), withPolicy(b, { category, tags: ["blue"] }), withPolicy(c, { tags: ["red"] })],
  });
  expect((await request("POST", `/tools/${b}/disable`)).status).toBe(200);

  const inCategory = await request("GET", `/tools?category=${category}`);
  expect(inCategory.status).toBe(200);
  expect(inCategory.body.tools).toEqual([
    {
      name: a,
      group,
      description: `The ${a} tool searches things.`,
      category,
      tags: ["red", "blue"],
      disabled: false,
      policy: { category, tags: ["red", "blue"], disabled: false },
      overridden: false,
      tokens: expect.any(Number),
    },
    {
      name: b,
      group,
      description: `The ${b} tool searches things.`,
      category,
      tags: ["blue"],
      disabled: true,
      policy: { category, tags: ["blue"], disabled: true },
      overridden: false,
      tokens: expect.any(Number),
    },
  ]);
  const blueInCategory = (await request("GET", `/tools?category=${category}&tag=red`)).body.tools.map((t: { name: string }) => t.name);
  expect(blueInCategory).toEqual([a]);
  const byText = (await request("GET", `/tools?q=${c.toUpperCase()}`)).body.tools.map((t: { name: string }) => t.name);
  expect(byText).toEqual([c]);
  const builtins = (await request("GET", "/tools?q=read_file")).body.tools;
  expect(builtins).toEqual([expect.objectContaining({ name: "read_file", group: "workspace", category: null, disabled: false })]);
});

test("GET /tools - a category set by an admin's policy override counts, as the guard sees it", async () => {
  const category = unique("moved");
  const name = unique("overridden");
  await putGroup(request, unique("plain"), { description: "A plain group.", tools: [tool(name)] });
  expect((await request("PATCH", `/tools/${name}/policy`, { body: { category } })).status).toBe(200);
  expect((await request("GET", `/tools?category=${category}`)).body.tools.map((t: { name: string }) => t.name)).toEqual([name]);
});

test("GET /tools - each tool carries the policy the guard applies and whether an admin overrode it, exactly as GET /tools/:name has them", async () => {
  const [own, changed, switchedOff] = [unique("own"), unique("changed"), unique("off")];
  await putGroup(request, unique("policies"), {
    description: "Tools with policies.",
    tools: [withPolicy(own, { dangerous: true, rateLimit: { perMinute: 5 } }), withPolicy(changed, { timeoutMs: 1_000 }), tool(switchedOff)],
  });
  expect((await request("PATCH", `/tools/${changed}/policy`, { body: { requireConfirmation: true, allowedRoles: ["writer"] } })).status).toBe(200);
  expect((await request("POST", `/tools/${switchedOff}/disable`)).status).toBe(200);

  const listed = (await request("GET", "/tools")).body.tools as Array<{ name: string; policy: unknown; overridden: boolean }>;
  const byName = new Map(listed.map((entry) => [entry.name, entry]));
  expect(byName.get(own)).toMatchObject({ policy: { dangerous: true, rateLimit: { perMinute: 5 }, disabled: false }, overridden: false });
  expect(byName.get(changed)).toMatchObject({ policy: { timeoutMs: 1_000, requireConfirmation: true, allowedRoles: ["writer"], disabled: false }, overridden: true });
  expect(byName.get(switchedOff)).toMatchObject({ policy: { disabled: true }, overridden: false });
  for (const entry of listed) expect(entry.policy, entry.name).toEqual((await request("GET", `/tools/${entry.name}`)).body.policy);

  expect((await request("PATCH", `/tools/${changed}/policy`, { body: { requireConfirmation: null, allowedRoles: null } })).status).toBe(200);
  expect((await request("GET", `/tools?q=${changed}`)).body.tools[0]).toMatchObject({ policy: { timeoutMs: 1_000, disabled: false }, overridden: false });
});

test("GET /tools/stats - counts every tool, the switched-off ones and each category", async () => {
  const before = (await request("GET", "/tools/stats")).body;
  const category = unique("stats");
  const names = [unique("s1"), unique("s2"), unique("s3")];
  await putGroup(request, unique("counted"), {
    description: "Counted tools.",
    tools: [withPolicy(names[0]!, { category }), withPolicy(names[1]!, { category }), tool(names[2]!)],
  });
  await request("POST", `/tools/${names[0]}/disable`);
  const after = (await request("GET", "/tools/stats")).body;
  expect(after.totalTools).toBe(before.totalTools + 3);
  expect(after.disabledTools).toBe(before.disabledTools + 1);
  expect(after.categories[category]).toBe(2);
  expect(after.categories.uncategorised).toBe((before.categories.uncategorised ?? 0) + 1);
  const listed = (await request("GET", "/tools")).body.tools;
  expect(listed).toHaveLength(after.totalTools);
});

test("GET /tools and /tools/stats - need the admin token; an unknown filter is 400 invalid_query", async () => {
  const role = await createRole(request, { name: unique("reader"), toolGroups: ["artifact"] });
  const { token } = await createAgent(request, role.id);
  for (const path of ["/tools", "/tools/stats"]) {
    expect((await request("GET", path, { token })).status, path).toBe(403);
    expect((await request("GET", path, { token: null })).status, path).toBe(401);
  }
  const unknown = await request("GET", "/tools?colour=red");
  expect(unknown.status).toBe(400);
  expect(unknown.body).toMatchObject({ error: "invalid_query", message: expect.stringContaining("colour") });
});
