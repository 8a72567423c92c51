import type { DescribedTool } from "@toolgate/module/tool";
import type { NativeTool } from "./native";

/**
 * A built-in group: toolgate runs its tools itself (`native`), or they run elsewhere (`client`: the agent's runtime,
 * unless an admin binds an executor), and toolgate holds only their descriptions.
 */
export type BuiltinGroup<Id extends string = string> =
  | { id: Id; description: string; executor: { type: "native" }; tools: NativeTool[] }
  | { id: Id; description: string; executor: { type: "client" }; tools: DescribedTool[] };

export type NativeGroup = Extract<BuiltinGroup, { executor: { type: "native" } }>;

export const runsInToolgate = (group: BuiltinGroup): group is NativeGroup => group.executor.type === "native";
