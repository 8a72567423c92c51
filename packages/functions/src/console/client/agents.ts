import { api, failed, newestOnly, withQuery } from "./api";
import { badge, byId, code, consoleHref, element, inputById, setMessage, timeElement } from "./dom";
import { hideToken, showToken } from "./token";
import type { Agent, Role } from "./types";

let roleNames = new Map<string, string>();
let nextCursor: string | undefined;
const agentsPage = newestOnly();

export const roleNameOf = (roleId: string) => roleNames.get(roleId) ?? roleId;

export async function loadRoleNames() {
  const { roles } = await api<{ roles: Role[] }>("GET", "roles");
  roles.sort((a, b) => a.name.localeCompare(b.name));
  roleNames = new Map(roles.map((role) => [role.id, role.name]));
  return roles;
}

export const statusBadge = (agent: Agent) => badge(agent.status, agent.status === "active" ? "ok" : undefined);

function agentRow(agent: Agent) {
  return element("tr", { "data-agent": agent.id }, [
    element("th", { scope: "row" }, [element("a", { href: consoleHref("/agents/" + encodeURIComponent(agent.id)), text: agent.name })]),
    element("td", {}, [code(agent.id)]),
    element("td", { text: roleNameOf(agent.roleId) }),
    element("td", {}, [statusBadge(agent)]),
    element("td", { text: agent.department ?? "—" }),
    element("td", { text: agent.level === null ? "—" : String(agent.level) }),
    element("td", {}, [timeElement(agent.createdAt)]),
  ]);
}

const filters = () => ({
  roleId: byId<HTMLSelectElement>("agent-role-filter").value,
  status: byId<HTMLSelectElement>("agent-status-filter").value,
});

async function loadPage(append: boolean) {
  const status = byId("load-status");
  setMessage(status, "Loading the agents…");
  try {
    const page = await agentsPage<{ agents: Agent[]; nextCursor?: string }>("GET", withQuery("agents", { ...filters(), limit: 20, cursor: append ? nextCursor : undefined }));
    const rows = page.agents.map(agentRow);
    if (append) byId("agent-rows").append(...rows);
    else byId("agent-rows").replaceChildren(...rows);
    nextCursor = page.nextCursor;
    byId("more-agents").hidden = !nextCursor;
    const shown = byId("agent-rows").children.length;
    byId("agent-table").hidden = shown === 0;
    setMessage(status, shown ? "" : "No agent matches these filters.");
  } catch (error) {
    failed(status, error);
  }
}

export async function loadAgents() {
  try {
    const roles = await loadRoleNames();
    const options = roles.map((role) => element("option", { value: role.id, text: role.name }));
    byId("agent-role-filter").replaceChildren(element("option", { value: "", text: "Any role" }), ...options.map((option) => option.cloneNode(true)));
    byId("new-agent-role").replaceChildren(...options);
    const preset = new URLSearchParams(location.search).get("roleId");
    if (preset) byId<HTMLSelectElement>("agent-role-filter").value = preset;
  } catch (error) {
    return failed(byId("load-status"), error);
  }
  await loadPage(false);
}

export function wireAgentsPage() {
  byId("agent-filters").addEventListener("change", () => void loadPage(false));
  byId("agent-filters").addEventListener("submit", (event) => {
    event.preventDefault();
    void loadPage(false);
  });
  byId("more-agents").addEventListener("click", () => void loadPage(true));
  const form = byId<HTMLFormElement>("create-agent-form");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const problem = byId("create-agent-error");
    setMessage(problem, "");
    hideToken();
    const name = inputById("new-agent-name").value.trim();
    const department = inputById("new-agent-department").value.trim();
    const level = inputById("new-agent-level").value.trim();
    const body = {
      roleId: byId<HTMLSelectElement>("new-agent-role").value,
      ...(name ? { name } : {}),
      ...(department ? { department } : {}),
      ...(level ? { level: Number(level) } : {}),
    };
    const button = form.querySelector<HTMLButtonElement>("button[type=submit]")!;
    button.disabled = true;
    try {
      const created = await api<{ agent: Agent; token: string }>("POST", "agents", { body });
      form.reset();
      showToken(created.agent.name, created.token);
      byId("token-panel").prepend(
        element("p", { className: "message message-ok", role: "status" }, [
          "Agent created: ",
          element("a", { href: consoleHref("/agents/" + encodeURIComponent(created.agent.id)), text: created.agent.name }),
          ` (${created.agent.id}) in the role ${roleNameOf(created.agent.roleId)}.`,
        ]),
      );
      await loadPage(false);
    } catch (error) {
      failed(problem, error);
    } finally {
      button.disabled = false;
    }
  });
}
