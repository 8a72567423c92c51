import { asksPerson } from "../question/schema";
import type { CatalogItem } from "../dynamo/catalog";
import { groupRemovals, groupWrites } from "../dynamo/catalog";
import type { Db } from "../dynamo/client";
import type { Catalog } from "./catalog";
import { GROUP_ERRORS, groupError, groupNotFound } from "./errors";
import type { Executor } from "../executor/schema";
import { EXECUTOR_TYPES, isBuiltinOnly } from "../executor/types";
import { Group, scopeOfGroup } from "./schema";
import { SYSTEM } from "../scope/schema";
import { missingInScope } from "../scope/exists";
import type { GroupDefinition } from "./schema";
import type { GroupSource } from "./schema";
import type { ToolGroupManager } from "./manager";
import { NATIVE_GROUP_IDS } from "../builtin/groups";
import { RESERVED_GROUP_IDS } from "../builtin/ids";
import { isMetaTool } from "../builtin/tool-search";
import { Name } from "../tool/schema";
import { jsonSchemaProblems } from "../tool/json-schema";
import { parseOr, summarise } from "../validation";
import { refuseLiteralSecrets } from "../executor/secrets";
import { refuseStdio } from "../executor/stdio-check";

/** `unchangedSince`: the group's updatedAt when the change was prepared; registering over a group changed since is refused. */
export type Registration = { source: GroupSource; module?: string; now: string; replacing?: string; unchangedSince?: string };

/** DynamoDB items stop at 400 KB; the rest of the item needs a little room. */
export const MAX_GROUP_BYTES = 350 * 1024;

export type RegisterOutcome = { group: Group; replaced: boolean; warning?: "duplicate_group_id" };

/** A group id from a request: well-formed and not one of the reserved built-in ids. */
export function parseGroupId(id: unknown) {
  const groupId = parseOr(Name, id, GROUP_ERRORS, "invalid_group_def", "The group id");
  if ((RESERVED_GROUP_IDS as readonly string[]).includes(groupId)) throw reserved(groupId);
  return groupId;
}

/** search_tools and call_tool are toolgate's own, for every agent: no group may bring a tool by either name. */
function refuseMetaToolNames(id: string, input: GroupDefinition) {
  const taken = input.tools.find((tool) => isMetaTool(tool.function.name));
  if (taken)
    throw groupError(
      "reserved_tool_name",
      `"${taken.function.name}" is a reserved tool name: toolgate gives every agent search_tools and call_tool itself. Rename the tool (e.g. with a prefix).`,
      { toolName: taken.function.name, groupId: id },
    );
}

/** Toolgate's native tools (org_management, artifact, ask_user) are the same for every agent: no narrower scope may bring its own. */
function refuseShadowingNative(manager: ToolGroupManager, id: string, input: GroupDefinition) {
  if ((input.scope ?? SYSTEM) === SYSTEM) return;
  for (const tool of input.tools) {
    const native = manager.toolIn(SYSTEM, tool.function.name);
    if (native && (NATIVE_GROUP_IDS.includes(native.group.id) || asksPerson(native.group.id, tool.function.name)))
      throw groupError(
        "reserved_tool_name",
        `"${tool.function.name}" is a tool of toolgate's own group "${native.group.id}", which no department or agent may replace with its own. Rename the tool (e.g. with a prefix).`,
        { toolName: tool.function.name, groupId: id },
      );
  }
}

/** The executor types a group from outside toolgate may name, as a sentence: "http", "mcp" or "client". */
const REGISTRABLE_TYPES = EXECUTOR_TYPES.filter((type) => !isBuiltinOnly(type))
  .map((type) => `"${type}"`)
  .join(", ")
  .replace(/, ([^,]*)$/, " or $1");

const reserved = (id: string) =>
  groupError("reserved_group_id", `"${id}" is a reserved built-in group id; choose another id for this group.`, { groupId: id });

/** Builds the stored group and checks it against the catalog; throws the domain error a refusal maps to. */
export function planRegistration(
  manager: ToolGroupManager,
  id: string,
  input: GroupDefinition,
  registration: Registration,
): RegisterOutcome {
  const existing = manager.getGroup(id);
  if (registration.unchangedSince !== undefined && existing?.updatedAt !== registration.unchangedSince)
    throw groupError("group_changed", `The group "${id}" changed (or was removed) while its tools were being imported; nothing was written. Refresh it again.`, { groupId: id });
  if (input.executor && isBuiltinOnly(input.executor.type) && registration.source !== "builtin")
    throw groupError("invalid_group_def", `The executor type "${input.executor.type}" is only for toolgate's built-in groups; use ${REGISTRABLE_TYPES}.`, {
      details: [{ path: "executor.type", message: `must be ${REGISTRABLE_TYPES}` }],
    });
  if (input.executor && "headers" in input.executor) refuseLiteralSecrets(input.executor.headers);
  refuseStdio(input.executor);
  if (registration.source !== "builtin") refuseMetaToolNames(id, input);
  refuseShadowingNative(manager, id, input);
  const group = Group.parse({
    ...input,
    id,
    reserved: registration.source === "builtin",
    source: registration.source,
    ...(registration.module ? { module: registration.module } : {}),
    registeredAt: existing?.registeredAt ?? registration.now,
    updatedAt: registration.now,
  });
  const size = Buffer.byteLength(JSON.stringify(group), "utf8");
  if (size > MAX_GROUP_BYTES)
    throw groupError("invalid_group_def", `The group definition is ${Math.ceil(size / 1024)} KiB; a group can be at most ${MAX_GROUP_BYTES / 1024} KiB. Split it or shorten its descriptions and schemas.`, {
      details: [{ path: "tools", message: `the group is ${Math.ceil(size / 1024)} KiB, over the ${MAX_GROUP_BYTES / 1024} KiB limit` }],
    });
  const replacing = registration.replacing && manager.getGroup(registration.replacing)?.module === registration.module ? registration.replacing : undefined;
  const checked = manager.check(group, replacing);
  if (!checked.ok && checked.error === "reserved_group_id")
    throw reserved(id);
  if (!checked.ok)
    throw groupError(
      "tool_name_conflict",
      `The tool "${checked.toolName}" already belongs to the group "${checked.owner}"; within one scope (${scopeOfGroup(group)}), a tool name can belong to only one group.`,
      { toolName: checked.toolName, ownerGroup: checked.owner, groupId: id },
    );
  return { group, replaced: checked.replaced, ...(checked.warning ? { warning: checked.warning } : {}) };
}

/** Refuses (invalid_group_def) tools whose parameters are not a valid JSON Schema, and a scope naming no agent. */
async function checkDefinition(db: Db, input: GroupDefinition) {
  const missing = input.scope === undefined ? undefined : await missingInScope(db, input.scope);
  if (missing) throw groupError("invalid_group_def", `The group definition is not valid: ${missing}`, { details: [{ path: "scope", message: missing }] });
  const details = await jsonSchemaProblems(input.tools);
  if (details.length) throw groupError("invalid_group_def", `The group definition is not valid: ${summarise(details)}.`, { details });
}

export async function registerGroup(
  db: Db,
  catalog: Catalog,
  id: string,
  input: GroupDefinition,
  registration: Registration,
  extraItems: CatalogItem[] = [],
): Promise<RegisterOutcome> {
  await checkDefinition(db, input);
  return catalog.change((manager) => {
    const outcome = planRegistration(manager, id, input, registration);
    const replaced = registration.replacing && registration.replacing !== id ? manager.getGroup(registration.replacing) : undefined;
    const removeReplaced = replaced && replaced.module === registration.module ? groupRemovals(db, replaced, registration.module) : [];
    return { items: [...groupWrites(db, outcome.group, manager.getGroup(id)), ...removeReplaced, ...extraItems], result: outcome };
  });
}

export function unregisterGroup(db: Db, catalog: Catalog, id: string): Promise<Group> {
  return catalog.change((manager) => {
    const group = manager.getGroup(id);
    if (manager.isReserved(id))
      throw groupError("reserved_group_id", `"${id}" is a reserved built-in group and cannot be removed.`, { groupId: id });
    if (!group) throw groupNotFound(id);
    return { items: groupRemovals(db, group), result: group };
  });
}

/** Binds an executor to a group, built-in ones included (how an admin runs workspace tools through an http service). */
export function bindExecutor(db: Db, catalog: Catalog, id: string, executor: Executor, now: string): Promise<Group> {
  return catalog.change((manager) => {
    const group = manager.getGroup(id);
    if (!group) throw groupNotFound(id);
    if (isBuiltinOnly(executor.type) && !NATIVE_GROUP_IDS.includes(id))
      throw groupError("invalid_executor", `Only ${NATIVE_GROUP_IDS.join(" and ")} run natively inside toolgate.`);
    if ("headers" in executor) refuseLiteralSecrets(executor.headers, "headers", "invalid_executor");
    refuseStdio(executor, "executor", "invalid_executor");
    const updated = Group.parse({ ...group, executor, updatedAt: now });
    return { items: groupWrites(db, updated, group), result: updated };
  });
}
