import { api, failed } from "./api";
import { badge, byId, code, element, fact, setMessage, spaced, tokensLabel } from "./dom";
import { sourceName, toolsLabel } from "./group-choice";
import type { ExecutorSummary, GroupSummary } from "./types";

const EXECUTORS: Record<string, string> = {
  native: "toolgate runs these tools itself",
  client: "the agent's own runtime runs these tools",
  http: "an HTTP endpoint",
  mcp: "an MCP server",
};

/** The executor as a sentence part, and whether there is none (the group's tools cannot run). */
export function executorNodes(executor: ExecutorSummary | null | undefined) {
  if (!executor) return [badge("no executor", "danger"), " nothing is bound to run these tools, so calls to them are refused"];
  return [badge(executor.type), " " + (EXECUTORS[executor.type] ?? executor.type), executor.url ? " " : null, executor.url ? code(executor.url) : null];
}

function groupCard(group: GroupSummary) {
  const facts = [...fact("Source", sourceName(group.source) + (group.reserved ? " (reserved id)" : ""))];
  if (group.module) facts.push(...fact("Module", code(group.module)));
  facts.push(...fact("Executor", ...executorNodes(group.executor)));
  facts.push(...fact("Tools", ...spaced([toolsLabel(group.toolCount), ...group.tools.map((name) => code(name))])));
  facts.push(...fact("Context", element("span", { className: "badge badge-tokens", "data-tokens": "", text: tokensLabel(group.tokens) }), " in each agent's context when a role uses it"));
  return element("li", { className: group.executor === null ? "group-card group-card-warn" : "group-card" }, [
    element("h2", { text: group.id }),
    element("p", { className: "group-desc", text: group.description }),
    element("dl", {}, facts),
  ]);
}

export async function loadGroups() {
  const status = byId("load-status");
  setMessage(status, "Loading the tool groups…");
  try {
    const { groups: listed } = await api<{ groups: GroupSummary[] }>("GET", "groups");
    byId("group-list").replaceChildren(...listed.map(groupCard));
    setMessage(status, listed.length ? "" : "No tool groups are registered.");
  } catch (error) {
    failed(status, error);
  }
}
