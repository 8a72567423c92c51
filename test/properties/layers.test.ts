import fc from "fast-check";
import { expect, test } from "vitest";
import { accessOf, decide, listedTools } from "@toolgate/core/access";
import { RESERVED_GROUP_IDS } from "@toolgate/core/builtin";
import type { Group } from "@toolgate/core/group";
import { ToolGroupManager } from "../../packages/core/src/group/manager";
import { agentFixture, NOW, roleFixture } from "../support/fixtures";

const NAMES = ["fetch", "search", "notes", "deploy", "report"];
const SCOPES = ["system", "department:red", "department:blue", "agent:agt_a", "agent:agt_b"];
const AGENTS = [
  { id: "agt_a", department: "red" },
  { id: "agt_b", department: "blue" },
  { id: "agt_c", department: "red" },
  { id: "agt_d", department: null },
];

/** Groups over the three scopes; within one scope a name belongs to one group, across scopes names meet. */
const catalogArb = fc
  .uniqueArray(fc.record({ scope: fc.constantFrom(...SCOPES), name: fc.constantFrom(...NAMES) }), { maxLength: 14, selector: ({ scope, name }) => `${scope}/${name}` })
  .chain((tools) =>
    fc.tuple(
      fc.constant(tools),
      fc.array(fc.nat({ max: 2 }), { minLength: tools.length, maxLength: tools.length }),
    ),
  )
  .map(([tools, buckets]) => {
    const groups = new Map<string, Group>();
    tools.forEach(({ scope, name }, n) => {
      const id = `${scope.replace(":", "_")}_${buckets[n]}`;
      const group = groups.get(id) ?? { id, scope, description: id, tools: [], reserved: false, source: "api" as const, registeredAt: NOW, updatedAt: NOW };
      group.tools.push({ type: "function", function: { name, description: `${name} of ${id}`, parameters: { type: "object", properties: {} } } });
      groups.set(id, group);
    });
    return [...groups.values()];
  });

const scopeOf = (group: Group) => group.scope ?? "system";

const reaches = (scope: string, agent: (typeof AGENTS)[number]) =>
  scope === "system" || scope === `agent:${agent.id}` || (agent.department !== null && scope === `department:${agent.department}`);

const NARROWNESS: Record<string, number> = { system: 0, department: 1, agent: 2 };
const narrowness = (scope: string) => NARROWNESS[scope.split(":")[0]!]!;

test("layers - for every agent the listed tools are exactly the ones it may call, each name once and the narrowest it reaches; no other department's or agent's tool is seen", () => {
  fc.assert(
    fc.property(catalogArb, fc.option(fc.subarray(SCOPES.map((scope) => `${scope.replace(":", "_")}_0`)), { nil: null }), (groups, picked) => {
      const manager = new ToolGroupManager(RESERVED_GROUP_IDS);
      for (const group of groups) expect(manager.registerGroup(group)).toMatchObject({ ok: true });
      const role = roleFixture("rol_1", picked);
      for (const person of AGENTS) {
        const agent = { ...agentFixture(person.id, role.id), department: person.department };
        const access = accessOf(agent, role, { version: 1, manager, overrides: new Map(), policies: new Map() });
        const listed = listedTools(access).filter(({ group }) => group.id !== "tool_search");
        const names = listed.map(({ definition }) => definition.function.name);
        expect(new Set(names).size).toBe(names.length);
        for (const { group, definition } of listed) {
          expect(reaches(scopeOf(group), person)).toBe(true);
          const decided = decide(access, definition.function.name);
          expect(decided.allowed && decided.group.id).toBe(group.id);
          const usable = groups.filter(
            (other) => access.groups.includes(other.id) && reaches(scopeOf(other), person) && other.tools.some((tool) => tool.function.name === definition.function.name),
          );
          expect(Math.max(...usable.map((other) => narrowness(scopeOf(other))))).toBe(narrowness(scopeOf(group)));
        }
        for (const name of NAMES) expect(decide(access, name).allowed, `${person.id} ${name}`).toBe(names.includes(name));
        for (const group of groups.filter((other) => !reaches(scopeOf(other), person)))
          for (const tool of group.tools) {
            const decided = decide(access, tool.function.name);
            if (decided.allowed) expect(decided.group.id).not.toBe(group.id);
          }
      }
    }),
    { numRuns: 200 },
  );
});
