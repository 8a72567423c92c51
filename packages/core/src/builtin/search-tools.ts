import { defineTool } from "@toolgate/module/tool";
import { loadView } from "../access/index";
import * as Agent from "../agent/index";
import { searchVisible } from "../search/visible";
import type { NativeContext } from "./native";
import { searchToolsDescription } from "./tool-search";

/** search_tools, run by toolgate over the tools the calling agent may call (its view as cached). */
export const searchTools = defineTool({
  ...searchToolsDescription,
  execute: async ({ query, limit }, { db, catalog, roles, agentId }: NativeContext) => {
    const { access } = await loadView({ db, catalog, roles }, await Agent.get(db, agentId), "cached");
    return { query, tools: searchVisible(access, { q: query, limit }) };
  },
});
