import { beforeAll, expect, test } from "vitest";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import type { Toolgate } from "@toolgate/core/toolgate";
import { api, testToolgate, tool } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { githubGroup as asGroup } from "../support/upstream-mcp";
import { agentWithGroups, createAgent, createRole, putGroup, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;

/** What the agent receives for one tool, counted by the same tokenizer independently of toolgate. */
const expectedTokens = (definition: { function: unknown }) => countTokens(JSON.stringify({ type: "function", function: definition.function }));

let issues: string;
let labels: string;

beforeAll(async () => {
  toolgate = await testToolgate();
  request = api(toolgate);
  issues = unique("issues");
  labels = unique("labels");
  await putGroup(request, issues, asGroup("gh_issues"));
  await putGroup(request, labels, asGroup("gh_labels"));
});

test("GET /groups/:id - tokens per tool and in all, exactly gpt-tokenizer's o200k_base count of what an agent receives (x-toolgate stripped)", async () => {
  const policyHeavy = unique("policed");
  await putGroup(request, policyHeavy, {
    description: "A tool with a long policy that no agent ever sees.",
    tools: [{ ...tool(unique("guarded_tool")), "x-toolgate": { dangerous: true, allowedRoles: ["a".repeat(60), "b".repeat(60)], tags: ["x", "y"] } }],
  });
  for (const id of [issues, labels, policyHeavy]) {
    const group = await request("GET", `/groups/${id}`);
    expect(group.status).toBe(200);
    const perTool = Object.fromEntries(group.body.tools.map((definition: { function: { name: string } }) => [definition.function.name, expectedTokens(definition)]));
    expect(group.body.toolTokens).toEqual(perTool);
    expect(group.body.tokens).toBe(Object.values(perTool).reduce((sum, n) => sum + n, 0));
    expect(group.body.tokens).toBeGreaterThan(0);
  }
  const list = await request("GET", "/groups");
  const byId = Object.fromEntries(list.body.groups.map((group: { id: string; tokens: number }) => [group.id, group.tokens]));
  expect(byId[issues]).toBe((await request("GET", `/groups/${issues}`)).body.tokens);
  expect(Object.values(byId).every((tokens) => typeof tokens === "number" && tokens >= 0)).toBe(true);
});

test("GET /roles/:id and GET /roles - toolTokens is what the role's groups cost; a disabled tool no longer counts", async () => {
  const role = await createRole(request, { name: unique("triager"), toolGroups: [issues, labels] });
  const groupTokens = async (id: string) => (await request("GET", `/groups/${id}`)).body as { tokens: number; toolTokens: Record<string, number> };
  const [issuesCost, labelsCost] = await Promise.all([groupTokens(issues), groupTokens(labels)]);
  const read = async () => (await request("GET", `/roles/${role.id}`)).body.toolTokens as number;
  expect(await read()).toBe(issuesCost.tokens + labelsCost.tokens);
  const listed = (await request("GET", "/roles")).body.roles.find((r: { id: string }) => r.id === role.id);
  expect(listed.toolTokens).toBe(issuesCost.tokens + labelsCost.tokens);

  const [disabled, cost] = Object.entries(labelsCost.toolTokens)[0]!;
  expect((await request("POST", `/tools/${disabled}/disable`)).status).toBe(200);
  try {
    expect(await read()).toBe(issuesCost.tokens + labelsCost.tokens - cost);
  } finally {
    await request("POST", `/tools/${disabled}/enable`);
  }
});

test("GET /agents/:id/tools - tokens is exactly what the agent's visible tools cost, fewer than its role's when a tool needs a level it lacks", async () => {
  const leveled = unique("leveled");
  const senior = unique("senior_only");
  await putGroup(request, leveled, { description: "Senior tools.", tools: [{ ...tool(senior, "Only for senior agents."), "x-toolgate": { minLevel: 3 } }, tool(unique("anyone"))] });
  const { role, agent, token } = await agentWithGroups(request, [labels, leveled]);
  const visible = await request("GET", `/agents/${agent.id}/tools`, { token });
  expect(visible.status).toBe(200);
  expect(visible.body.tokens).toBe(visible.body.tools.reduce((sum: number, definition: { function: unknown }) => sum + expectedTokens(definition), 0));
  const roleTokens = (await request("GET", `/roles/${role.id}`)).body.toolTokens;
  const seniorTokens = (await request("GET", `/groups/${leveled}`)).body.toolTokens[senior];
  expect(visible.body.tokens).toBe(roleTokens - seniorTokens);
  const promoted = await createAgent(request, role.id, { level: 5 });
  expect((await request("GET", `/agents/${promoted.agent.id}/tools`, { token: promoted.token })).body.tokens).toBe(roleTokens);
});

test("GET /agents/:id/tools?format= - the same visible tools in OpenAI's, Anthropic's, MCP's and Gemini's shapes; an unknown format is 400", async () => {
  const { agent, token } = await agentWithGroups(request, [issues, labels]);
  const get = (format?: string) => request("GET", `/agents/${agent.id}/tools${format ? `?format=${format}` : ""}`, { token });
  const openai = (await get()).body;
  expect(openai.format).toBe("openai");
  const names = openai.tools.map((t: { function: { name: string } }) => t.function.name);
  expect((await get("openai")).body.tools).toEqual(openai.tools);

  const anthropic = (await get("anthropic")).body;
  expect(anthropic.tools.map((t: { name: string }) => t.name)).toEqual(names);
  for (const t of anthropic.tools) {
    expect(Object.keys(t).sort()).toEqual(["description", "input_schema", "name"]);
    expect(t.input_schema.type).toBe("object");
    for (const combinator of ["oneOf", "anyOf", "allOf"]) expect(t.input_schema).not.toHaveProperty(combinator);
  }
  const mcp = (await get("mcp")).body;
  expect(mcp.tools.map((t: { name: string }) => t.name)).toEqual(names);
  for (const t of mcp.tools) expect(Object.keys(t).sort()).toEqual(["annotations", "description", "inputSchema", "name"]);
  const gemini = (await get("gemini")).body;
  expect(gemini.tools.map((t: { name: string }) => t.name)).toEqual(names);
  expect(JSON.stringify(gemini.tools)).not.toMatch(/"(\$schema|additionalProperties|\$ref|\$defs|const|oneOf|examples)"/);
  expect(new Set([openai.tokens, anthropic.tokens, mcp.tokens, gemini.tokens]).size).toBe(1);

  const bad = await get("cohere");
  expect(bad.status).toBe(400);
  expect(bad.body.error).toBe("invalid_query");
});
