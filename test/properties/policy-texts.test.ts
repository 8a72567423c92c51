import fc from "fast-check";
import { beforeAll, expect, test } from "vitest";
import type { Toolgate } from "@toolgate/core/toolgate";
import { api, testToolgate } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { agentWithGroups, unique } from "../integration/helpers";

const NUM_RUNS = 60;

let toolgate: Toolgate;
let request: Api;

beforeAll(async () => {
  toolgate = await testToolgate();
  request = api(toolgate);
});

/** What a hostile or careless text is made of: brackets nested deep, long operator chains, nested ifs, junk. */
const piece: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(fc.constantFrom(["(", ")"], ["[", "]"], ["{a:", "}"], ["ip(", ")"], ['decimal("1")', ""]), fc.integer({ min: 1, max: 400 }), fc.constantFrom("true", "1", '"x"', "context"))
    .map(([[open, close], depth, inner]) => `${open!.repeat(depth)}${inner}${close!.repeat(depth)}`),
  fc.tuple(fc.constantFrom(" || ", " && ", " == ", ".a", " has a && ", " + ", " - ", "!", " like \"*\" && "), fc.integer({ min: 1, max: 4000 })).map(([operator, count]) => `true${operator.repeat(count)}true`),
  fc.integer({ min: 1, max: 2000 }).map((count) => `${"if true then ".repeat(count)}true${" else false".repeat(count)}`),
  fc.string({ maxLength: 200 }),
);

const text = fc.tuple(fc.constantFrom("forbid", "permit", "@effect(\"ask\") permit"), fc.array(piece, { minLength: 1, maxLength: 3 }), fc.boolean()).map(
  ([effect, pieces, unless]) => `${effect} (principal, action, resource) ${unless ? "unless" : "when"} { ${pieces.join(" && ")} };`,
);

test("POST /policies/validate - any text, however deep or long, is answered with its problems or a 4xx, never a 500; the policy engine then still answers and a deny policy still refuses its call", async () => {
  await fc.assert(
    fc.asyncProperty(text, async (cedar) => {
      const validated = await request("POST", "/policies/validate", { body: { scope: "system", cedar } });
      expect(validated.status === 200 || (validated.status >= 400 && validated.status < 500), JSON.stringify(validated.body).slice(0, 300)).toBe(true);
    }),
    { numRuns: NUM_RUNS },
  );

  expect((await request("GET", "/health?deep=1")).body).toMatchObject({ ok: true, policyEngine: "available" });
  const agent = await agentWithGroups(request, ["command"]);
  const denied = await request("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: "run_command", arguments: { command: "rm -rf /" } } });
  expect(denied.status, JSON.stringify(denied.body)).toBe(403);
  expect(denied.body).toMatchObject({ error: "policy_denied", policies: ["dangerous-commands"] });
  const id = unique("after-fuzz");
  const stored = await request("PUT", `/policies/${id}`, { body: { scope: "system", cedar: 'forbid (principal, action == Action::"run_command", resource) when { context.command like "shutdown*" };' } });
  expect(stored.status, JSON.stringify(stored.body)).toBe(201);
  const refused = await request("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: "run_command", arguments: { command: "shutdown -h now" } } });
  expect(refused.body).toMatchObject({ error: "policy_denied", policies: [id] });
  expect((await request("DELETE", `/policies/${id}`)).status).toBe(204);
});

test("POST /policies/validate - 200 nested parentheses (which trap the engine) are a problem naming the nesting, and the next call still decides", async () => {
  const validated = await request("POST", "/policies/validate", { body: { scope: "system", cedar: `forbid (principal, action, resource) when { ${"(".repeat(200)}true${")".repeat(200)} };` } });
  expect(validated.status).toBe(200);
  expect(validated.body).toMatchObject({ valid: false, problems: [expect.objectContaining({ message: expect.stringContaining("nest more than 40 levels") })] });
  const agent = await agentWithGroups(request, ["command"]);
  const denied = await request("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: "run_command", arguments: { command: "rm -rf /" } } });
  expect(denied.body).toMatchObject({ error: "policy_denied", policies: ["dangerous-commands"] });
});
