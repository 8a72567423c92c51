import type { Executor } from "../executor/schema";
import type { ToolDefinition } from "../tool/schema";
import { artifactGroup } from "./artifact";
import { commandGroup } from "./command";
import { consoleGroup } from "./console";
import { contextGroup } from "./context";
import { definitionOf } from "./definition";
import { runsInToolgate } from "./group";
import type { BuiltinGroup } from "./group";
import { RESERVED_GROUP_IDS } from "./ids";
import type { ReservedGroupId } from "./ids";
import type { NativeTool } from "./native";
import { networkGroup } from "./network";
import { orgManagementGroup } from "./org-management";
import { searchTools } from "./search-tools";
import { workspaceGroup } from "./workspace";

const GROUPS = {
  org_management: orgManagementGroup,
  artifact: artifactGroup,
  workspace: workspaceGroup,
  command: commandGroup,
  network: networkGroup,
  context: contextGroup,
  console: consoleGroup,
} satisfies { [Id in ReservedGroupId]: BuiltinGroup<Id> };

export const BUILTIN_GROUPS: readonly BuiltinGroup[] = RESERVED_GROUP_IDS.map((id) => GROUPS[id]);

/** Built-in groups toolgate runs itself; the others run in the agent's runtime unless an admin binds an http executor. */
export const NATIVE_GROUP_IDS: readonly string[] = BUILTIN_GROUPS.filter(runsInToolgate).map((group) => group.id);

/** Every tool toolgate runs itself, by name: its native groups' tools and search_tools. */
export const NATIVE_TOOLS: ReadonlyMap<string, NativeTool> = new Map(
  [...BUILTIN_GROUPS.filter(runsInToolgate).flatMap((group) => group.tools), searchTools].map((tool) => [tool.name, tool]),
);

/** A built-in group as the catalog registers it, with the executor it has until an admin binds another. */
export type BuiltinGroupDefinition = { id: ReservedGroupId; description: string; tools: ToolDefinition[]; executor: Executor };

let built: BuiltinGroupDefinition[] | undefined;

/** The built-in groups, their tools' JSON Schemas made from their zod parameters on first use rather than when a function starts. */
export const builtinGroups = (): BuiltinGroupDefinition[] =>
  (built ??= RESERVED_GROUP_IDS.map((id) => ({
    id,
    description: GROUPS[id].description,
    tools: GROUPS[id].tools.map(definitionOf),
    executor: GROUPS[id].executor,
  })));
