/**
 * `@toolgate/core/builtin`: the built-in tools that run outside toolgate (in the agent's runtime, or in a module an
 * admin binds to their group), as descriptions a module adds its `execute` to, so it serves exactly the definitions
 * agents see: `defineTool({ ...readFile, execute })`. It imports none of toolgate's domain.
 */
export { getWorkspaceInfo, listFiles, readFile, writeFile } from "./workspace";
export { runCommand, runJavascript } from "./command";
export { httpRequest } from "./network";
export { compressContext, getContextStatus } from "./context";
export { askUser, consolePrint } from "./console";
export { RESERVED_GROUP_IDS } from "./ids";
export type { ReservedGroupId } from "./ids";
export { CALL_TOOL, isMetaTool, META_GROUP_ID, metaGroup, SEARCH_TOOLS } from "./tool-search";
