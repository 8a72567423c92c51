import { badge, element, spaced, tokensLabel } from "./dom";
import type { GroupSummary } from "./types";

const SOURCES: Record<string, string> = { builtin: "built-in", module: "module", api: "added through the API" };
export const sourceText = (group: Pick<GroupSummary, "module" | "source">) => (group.module ? "module " + group.module : SOURCES[group.source] || group.source);
export const sourceName = (source: string) => SOURCES[source] || source;
export const toolsLabel = (count: number) => element("span", { className: "tools-label", text: count === 1 ? "1 tool:" : count + " tools:" });

export const sumTokens = (items: Array<{ tokens?: number }>) => items.reduce((sum, item) => sum + Number(item.tokens || 0), 0);

/**
 * A group as a box to tick: its id, where it comes from, what its tools cost in each agent's context, its description
 * and its tools. `key` prefixes the ids of its parts (one page may hold two lists of groups).
 */
export function groupChoice(group: GroupSummary, options: { key: string; checked: boolean; disabled: boolean; fixed?: boolean }) {
  const key = options.key + group.id;
  const input = element("input", { type: "checkbox", id: key, name: "toolGroups", value: group.id, "aria-describedby": `${key}-tokens ${key}-description ${key}-tools` });
  input.checked = options.checked;
  input.disabled = options.disabled;
  return element("li", {}, [
    input,
    element("div", { className: "group-head" }, [
      element("label", { for: key, text: group.id }),
      badge(sourceText(group)),
      options.fixed ? badge("fixed for this role", "fixed") : null,
      element("span", { className: "badge badge-tokens", id: key + "-tokens", text: tokensLabel(group.tokens) }),
    ]),
    element("p", { className: "group-desc", id: key + "-description", text: group.description }),
    element("p", { className: "tool-names", id: key + "-tools" }, spaced([toolsLabel(group.tools.length), ...group.tools.map((name) => element("code", { text: name }))])),
  ]);
}
