import { api, failed, segment } from "./api";
import { byId, code, consoleHref, element, plural, setMessage, spaced } from "./dom";
import { narrowestFirst, scopeNodes, scopeText } from "./scope";

type Layer = { group: string; scope: string };
type LayeredTool = Layer & { name: string; shadows: Layer[] };

const groupLink = (group: string) => element("a", { href: consoleHref("/groups") + "#group-" + encodeURIComponent(group) }, [code(group)]);

const toolRow = (agentId: string) => (tool: LayeredTool) =>
  element("tr", { "data-tool": tool.name }, [
    element("th", { scope: "row" }, [code(tool.name)]),
    element("td", {}, scopeNodes(tool.scope, agentId)),
    element("td", {}, [groupLink(tool.group)]),
    element("td", {}, tool.shadows.length ? spaced(tool.shadows.map((shadowed) => element("span", {}, [groupLink(shadowed.group), ` (${scopeText(shadowed.scope)})`]))) : ["—"]),
  ]);

/** The agent's effective tools, narrowest layer first: each with the layer it comes from and what it shadows (GET /agents/:id/tools/layers). */
export async function loadAgentTools(agentId: string, active: boolean) {
  const status = byId("tools-status");
  if (!active) {
    byId("agent-tool-table").hidden = true;
    return setMessage(status, "A terminated agent calls no tools.");
  }
  setMessage(status, "Loading the agent's tools…");
  try {
    const { tools } = await api<{ tools: LayeredTool[] }>("GET", `agents/${segment(agentId)}/tools/layers`);
    byId("agent-tool-rows").replaceChildren(...[...tools].sort(narrowestFirst).map(toolRow(agentId)));
    byId("agent-tool-table").hidden = tools.length === 0;
    const shadowing = tools.filter((tool) => tool.shadows.length).length;
    setMessage(
      status,
      tools.length === 0
        ? "This agent may call no tool now."
        : `${plural(tools.length, "tool")} it may call` + (shadowing ? `; ${plural(shadowing, "of them is", "of them are")} in front of a wider layer's tool of the same name.` : "."),
    );
  } catch (error) {
    failed(status, error);
  }
}
