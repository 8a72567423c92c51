import fc from "fast-check";
import { agentFixture, roleFixture } from "../support/fixtures";
import { expect, test } from "vitest";
import { decide, visibleTools } from "@toolgate/core/access";
import type { Access } from "@toolgate/core/access";
import { ToolgateError } from "@toolgate/core/error";
import { RESERVED_GROUP_IDS } from "@toolgate/core/builtin";
import { builtinGroups } from "@toolgate/core/builtin/groups";
import type { GroupDefinition } from "@toolgate/core/group";
import { ToolGroupManager } from "../../packages/core/src/group/manager";
import { parseGroupId, planRegistration } from "../../packages/core/src/group/register";
import { effectiveToolGroups } from "@toolgate/core/role";
import type { Role } from "@toolgate/core/role";
import type { ToolDefinition } from "@toolgate/core/tool";

const NUM_RUNS = 100;
const NOW = "2024-01-01T00:00:00.000Z";

const RESERVED = new Set<string>(RESERVED_GROUP_IDS);
const BUILTIN_TOOL_NAMES = new Set(builtinGroups().flatMap((group) => group.tools.map((tool) => tool.function.name.toLowerCase())));
const ORG_MANAGEMENT_TOOLS = builtinGroups().find((group) => group.id === "org_management")!.tools.map((tool) => tool.function.name);

const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const nameArb = fc.oneof({ arbitrary: fc.stringMatching(NAME), weight: 5 }, { arbitrary: fc.stringMatching(NAME, { size: "max" }), weight: 1 });
const groupIdArb = nameArb.filter((id) => !RESERVED.has(id));
const toolNameArb = nameArb.filter((name) => !BUILTIN_TOOL_NAMES.has(name.toLowerCase()));

const parametersArb = fc.record({
  type: fc.constant("object"),
  properties: fc.dictionary(
    fc.constantFrom("query", "path", "limit", "flag", "tags"),
    fc.constantFrom({ type: "string" }, { type: "integer", minimum: 0 }, { type: "boolean" }, { type: "array", items: { type: "string" } }),
    { maxKeys: 3 },
  ),
});

const policyArb = fc.option(
  fc.record({ dangerous: fc.boolean(), timeoutMs: fc.integer({ min: 1, max: 900_000 }), tags: fc.array(fc.string({ maxLength: 8 }), { maxLength: 2 }) }, { requiredKeys: [] }),
  { nil: undefined },
);

const toolArb: fc.Arbitrary<ToolDefinition> = fc
  .record({ name: toolNameArb, description: fc.string({ minLength: 1, maxLength: 30 }), parameters: parametersArb, policy: policyArb })
  .map(({ name, description, parameters, policy }) => ({
    type: "function" as const,
    function: { name, description, parameters },
    ...(policy ? { "x-toolgate": policy } : {}),
  }));

const descriptionArb = fc.string({ minLength: 1, maxLength: 40 }).filter((text) => text.trim().length > 0);

type GroupSpec = { id: string; input: GroupDefinition };

/** Groups with distinct, unreserved ids, each with 1+ tools; tool names unique across all groups in any case. */
const catalogArb = (minGroups: number, maxGroups: number): fc.Arbitrary<GroupSpec[]> =>
  fc
    .record({
      ids: fc.uniqueArray(groupIdArb, { minLength: minGroups, maxLength: maxGroups }),
      descriptions: fc.array(descriptionArb, { minLength: maxGroups, maxLength: maxGroups }),
      tools: fc.uniqueArray(toolArb, { minLength: maxGroups, maxLength: maxGroups * 3, selector: (tool) => tool.function.name.toLowerCase() }),
      owners: fc.array(fc.nat(), { minLength: maxGroups * 3, maxLength: maxGroups * 3 }),
    })
    .map(({ ids, descriptions, tools, owners }) =>
      ids.map((id, groupIndex) => ({
        id,
        input: {
          description: descriptions[groupIndex]!,
          tools: tools.filter((_, toolIndex) => (toolIndex < ids.length ? toolIndex : owners[toolIndex]! % ids.length) === groupIndex),
        },
      })),
    );

const toolNames = (spec: GroupSpec) => spec.input.tools.map((tool) => tool.function.name);

function builtinManager(): ToolGroupManager {
  const manager = new ToolGroupManager(RESERVED_GROUP_IDS);
  for (const builtin of builtinGroups()) {
    const { group } = planRegistration(manager, builtin.id, { description: builtin.description, tools: builtin.tools }, { source: "builtin", now: NOW });
    expect(manager.registerGroup(group)).toMatchObject({ ok: true });
  }
  return manager;
}

function register(manager: ToolGroupManager, spec: GroupSpec, source: "api" | "module" = "api") {
  const outcome = planRegistration(manager, spec.id, spec.input, { source, now: NOW });
  const result = manager.registerGroup(outcome.group);
  expect(result).toMatchObject({ ok: true, replaced: outcome.replaced });
  return result;
}

function managerWith(specs: GroupSpec[]) {
  const manager = builtinManager();
  for (const spec of specs) register(manager, spec);
  return manager;
}

const agent = agentFixture("agt_prop", "rol_prop", "prop");

const roleWith = (id: string, toolGroups: string[] | null) => roleFixture(id, toolGroups);

const accessFor = (role: Role, manager: ToolGroupManager): Access => ({ agent: { ...agent, roleId: role.id }, role, manager, overrides: new Map(), policies: new Map(), revision: 1, groups: effectiveToolGroups(role, manager), scopes: ["system"], layers: [], complete: true });

const visibleNames = (access: Access) => visibleTools(access).map((tool) => tool.function.name);

const allToolNames = (manager: ToolGroupManager) => manager.listGroups().flatMap((summary) => summary.tools);

test("registration consistency", () => {
  fc.assert(
    fc.property(catalogArb(1, 5), fc.constantFrom("api" as const, "module" as const), fc.boolean(), (specs, source, replaceExisting) => {
      const existing = specs.slice(0, -1);
      const fresh = specs[specs.length - 1]!;
      const manager = managerWith(existing);
      const replaced = replaceExisting && existing.length > 0 ? existing[0]! : undefined;
      const spec: GroupSpec = replaced ? { id: replaced.id, input: fresh.input } : fresh;

      const result = register(manager, spec, source);

      expect(result).toEqual(replaced ? { ok: true, replaced: true, warning: "duplicate_group_id" } : { ok: true, replaced: false });
      const stored = manager.getGroup(spec.id);
      expect(stored?.id).toBe(spec.id);
      expect(stored?.source).toBe(source);
      expect(stored?.description).toBe(spec.input.description.trim());
      expect(stored?.tools).toEqual(spec.input.tools);
      expect(manager.getAllGroupIds()).toContain(spec.id);
      for (const name of toolNames(spec)) {
        expect(manager.getToolGroup(name)).toBe(spec.id);
        expect(manager.findTool(name)?.group.id).toBe(spec.id);
      }
      const dropped = replaced ? toolNames(replaced).filter((name) => !toolNames(spec).includes(name)) : [];
      for (const name of dropped) expect(manager.getToolGroup(name)).toBeNull();
      for (const other of existing.filter((g) => g.id !== spec.id))
        for (const name of toolNames(other)) expect(manager.getToolGroup(name)).toBe(other.id);
    }),
    { numRuns: NUM_RUNS },
  );
});

test("unregistration completeness", () => {
  fc.assert(
    fc.property(
      catalogArb(1, 5).chain((specs) => fc.tuple(fc.constant(specs), fc.nat({ max: specs.length - 1 }))),
      ([specs, index]) => {
        const manager = managerWith(specs);
        const removed = specs[index]!;

        expect(manager.unregisterGroup(removed.id)).toEqual({ ok: true });

        expect(manager.getGroup(removed.id)).toBeUndefined();
        expect(manager.getAllGroupIds()).not.toContain(removed.id);
        expect(manager.listGroups().map((summary) => summary.id)).not.toContain(removed.id);
        for (const name of toolNames(removed)) {
          expect(manager.getToolGroup(name)).toBeNull();
          expect(manager.findTool(name)).toBeUndefined();
        }
        for (const other of specs.filter((spec) => spec !== removed))
          for (const name of toolNames(other)) expect(manager.getToolGroup(name)).toBe(other.id);
        expect(manager.unregisterGroup(removed.id)).toEqual({ ok: false, error: "group_not_found" });
      },
    ),
    { numRuns: NUM_RUNS },
  );
});

function refusal(run: () => unknown): ToolgateError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ToolgateError);
    return error as ToolgateError;
  }
  throw new Error("expected the registration to be refused");
}

test("reserved-id rejection", () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...RESERVED_GROUP_IDS),
      fc.constantFrom("api" as const, "module" as const),
      catalogArb(1, 1),
      fc.boolean(),
      (reservedId, source, [spec], withBuiltins) => {
        const manager = withBuiltins ? builtinManager() : new ToolGroupManager(RESERVED_GROUP_IDS);
        const before = manager.listGroups();

        const planned = refusal(() => planRegistration(manager, reservedId, spec!.input, { source, module: "some-module", now: NOW }));
        expect(planned.code).toBe("reserved_group_id");
        expect(planned.status).toBe(409);

        const parsed = refusal(() => parseGroupId(reservedId));
        expect(parsed.code).toBe("reserved_group_id");
        expect(parsed.status).toBe(409);

        expect(manager.listGroups()).toEqual(before);
        expect(parseGroupId(spec!.id)).toBe(spec!.id);
      },
    ),
    { numRuns: NUM_RUNS },
  );
});

/** A catalog of 2+ groups, a group left out of the role, and a role naming some of the other groups (and maybe unregistered ones). */
const unauthorisedArb = catalogArb(2, 5).chain((specs) =>
  fc.record({
    specs: fc.constant(specs),
    excluded: fc.nat({ max: specs.length - 1 }),
    included: fc.array(fc.boolean(), { minLength: specs.length, maxLength: specs.length }),
    builtins: fc.subarray([...RESERVED_GROUP_IDS]),
    ghosts: fc.array(groupIdArb, { maxLength: 2 }),
    pick: fc.nat(),
    otherRole: fc.oneof(
      fc.constant(null),
      fc.constant<string[]>([]),
      fc.subarray([...specs.map((spec) => spec.id), ...RESERVED_GROUP_IDS, "ghost_group_x"]),
    ),
    otherRoleId: fc.constantFrom("rol_a", "root"),
    unknownNames: fc.array(toolNameArb, { maxLength: 3 }),
  }),
);

test("an unauthorised call is rejected naming the tool", () => {
  fc.assert(
    fc.property(unauthorisedArb, ({ specs, excluded, included, builtins, ghosts, pick, otherRole, otherRoleId, unknownNames }) => {
      const manager = managerWith(specs);
      const outside = specs[excluded]!;
      const ids = new Set(specs.map((spec) => spec.id));
      const toolGroups = [
        ...specs.filter((spec, index) => index !== excluded && included[index]).map((spec) => spec.id),
        ...builtins,
        ...ghosts.filter((ghost) => !ids.has(ghost)),
      ];
      if (toolGroups.length === 0) toolGroups.push("console");
      const access = accessFor(roleWith("rol_prop", toolGroups), manager);
      const toolName = toolNames(outside)[pick % outside.input.tools.length]!;

      const decision = decide(access, toolName);

      expect(decision.allowed).toBe(false);
      if (decision.allowed) return;
      expect(decision.group).toBe(outside.id);
      expect(decision.error.code).toBe("tool_not_available");
      expect(decision.error.status).toBe(403);
      expect(decision.error.details.toolName).toBe(toolName);
      expect(decision.error.message).toContain(toolName);
      expect(visibleNames(access)).not.toContain(toolName);

      const candidates = [...allToolNames(manager), ...unknownNames];
      for (const someAccess of [access, accessFor(roleWith(otherRoleId, otherRole === null ? null : [...otherRole]), manager)]) {
        const visible = new Set(visibleNames(someAccess));
        for (const name of candidates) expect(decide(someAccess, name).allowed, name).toBe(visible.has(name));
      }
    }),
    { numRuns: NUM_RUNS },
  );
});

test("query completeness", () => {
  fc.assert(
    fc.property(catalogArb(0, 5), (specs) => {
      const manager = managerWith(specs);

      const summaries = manager.listGroups();

      const expected = [
        ...builtinGroups().map((builtin) => ({ id: builtin.id, description: builtin.description, tools: builtin.tools.map((t) => t.function.name), reserved: true })),
        ...specs.map((spec) => ({ id: spec.id, description: spec.input.description.trim(), tools: toolNames(spec), reserved: false })),
      ];
      expect(summaries).toHaveLength(expected.length);
      expect(new Set(summaries.map((summary) => summary.id)).size).toBe(summaries.length);
      for (const group of expected) {
        const summary = summaries.find((entry) => entry.id === group.id);
        expect(summary, group.id).toBeDefined();
        expect(summary!.description).toBe(group.description);
        expect(summary!.toolCount).toBe(group.tools.length);
        expect(summary!.tools).toEqual(group.tools);
        expect(summary!.reserved).toBe(group.reserved);
      }
    }),
    { numRuns: NUM_RUNS },
  );
});

test("non-root roles default to all groups", () => {
  fc.assert(
    fc.property(
      catalogArb(1, 5),
      fc.constantFrom(null, [] as string[]),
      fc.stringMatching(/^rol_[0-9A-Z]{1,26}$/),
      fc.oneof(fc.constant(null), fc.constant([] as string[]), fc.subarray([...RESERVED_GROUP_IDS, "chrome"])),
      (specs, noGroups, roleId, rootGroups) => {
        const earlier = specs.slice(0, -1);
        const late = specs[specs.length - 1]!;
        const manager = managerWith(earlier);
        const role = roleWith(roleId, noGroups === null ? null : [...noGroups]);
        const root = roleWith("root", rootGroups === null ? null : [...rootGroups]);

        const allIdsBefore = [...RESERVED_GROUP_IDS, ...earlier.map((spec) => spec.id)].sort();
        expect([...effectiveToolGroups(role, manager)].sort()).toEqual(allIdsBefore);
        expect(new Set(visibleNames(accessFor(role, manager)))).toEqual(new Set(allToolNames(manager)));

        register(manager, late);

        const allIdsAfter = [...allIdsBefore, late.id].sort();
        const access = accessFor(role, manager);
        expect([...access.groups].sort()).toEqual(allIdsAfter);
        expect(new Set(visibleNames(access))).toEqual(new Set(allToolNames(manager)));
        for (const name of toolNames(late)) expect(decide(access, name).allowed).toBe(true);

        const rootAccess = accessFor(root, manager);
        expect(rootAccess.groups).toEqual(["org_management"]);
        expect(visibleNames(rootAccess)).toEqual(ORG_MANAGEMENT_TOOLS);
        for (const name of toolNames(late)) expect(decide(rootAccess, name).allowed).toBe(false);
      },
    ),
    { numRuns: NUM_RUNS },
  );
});
