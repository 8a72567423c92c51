import { api, ApiError, failed, newestOnly, segment, withQuery } from "./api";
import { byId, code, consoleHref, element, fact, inputById, plural, setMessage, timeElement } from "./dom";
import { loadRoleNames, roleNameOf, statusBadge } from "./agents";
import { loadAgentTools } from "./agent-tools";
import { callItem } from "./calls";
import { hideToken, showToken } from "./token";
import type { Agent, CallRecord, CallStatus } from "./types";
import { STATUS_TEXT } from "./calls";

let agent: Agent | null = null;
let nextCursor: string | undefined;
const callsPage = newestOnly();

const agentId = () => document.body.dataset.agentId ?? "";

function showAgent(shown: Agent) {
  agent = shown;
  document.title = shown.name + " · toolgate console";
  byId("agent-name").textContent = shown.name;
  byId("agent-facts").replaceChildren(
    ...fact("Id", code(shown.id)),
    ...fact("Role", element("a", { href: consoleHref("/roles/" + encodeURIComponent(shown.roleId)), text: roleNameOf(shown.roleId) })),
    ...fact("Status", statusBadge(shown)),
    ...fact("Department", shown.department === null ? "—" : element("a", { href: consoleHref("/departments") + "#department-" + encodeURIComponent(shown.department), text: shown.department })),
    ...fact("Level", shown.level === null ? "—" : String(shown.level)),
    ...fact("Created", timeElement(shown.createdAt), ` by ${shown.createdBy}`),
    ...(shown.terminatedAt ? fact("Terminated", timeElement(shown.terminatedAt)) : []),
    ...(shown.status === "active" && shown.tokenExpiresAt ? fact("Token expires", timeElement(shown.tokenExpiresAt)) : []),
  );
  const active = shown.status === "active";
  byId("agent-actions").hidden = !active;
}

async function loadCalls(append: boolean) {
  const status = byId("calls-status");
  setMessage(status, "Loading the calls…");
  try {
    const query = {
      status: byId<HTMLSelectElement>("call-status-filter").value,
      tool: inputById("call-tool-filter").value.trim(),
      limit: 20,
      cursor: append ? nextCursor : undefined,
    };
    const page = await callsPage<{ calls: CallRecord[]; nextCursor?: string }>("GET", withQuery(`agents/${segment(agentId())}/calls`, query));
    const items = page.calls.map(callItem);
    if (append) byId("call-list").append(...items);
    else byId("call-list").replaceChildren(...items);
    nextCursor = page.nextCursor;
    byId("more-calls").hidden = !nextCursor;
    setMessage(status, byId("call-list").children.length ? "" : query.status || query.tool ? "No call matches these filters." : "This agent has made no calls yet.");
  } catch (error) {
    failed(status, error);
  }
}

export async function loadAgent() {
  const status = byId("load-status");
  setMessage(status, "Loading the agent…");
  try {
    const [shown] = await Promise.all([api<Agent>("GET", "agents/" + segment(agentId())), loadRoleNames()]);
    showAgent(shown);
    byId("agent").hidden = false;
    setMessage(status, "");
  } catch (error) {
    return failed(status, error);
  }
  await Promise.all([loadAgentTools(agent!.id, agent!.status === "active"), loadCalls(false)]);
}

async function act(button: HTMLButtonElement, work: () => Promise<void>) {
  const result = byId("agent-result");
  button.disabled = true;
  setMessage(result, "");
  try {
    await work();
  } catch (error) {
    if (error instanceof ApiError && error.status !== 401) setMessage(result, error.message, "error");
    else failed(result, error);
  } finally {
    button.disabled = false;
  }
}

export function wireAgentPage() {
  const select = byId<HTMLSelectElement>("call-status-filter");
  select.replaceChildren(element("option", { value: "", text: "Any status" }), ...(Object.keys(STATUS_TEXT) as CallStatus[]).map((value) => element("option", { value, text: STATUS_TEXT[value] })));
  byId("call-filters").addEventListener("submit", (event) => {
    event.preventDefault();
    void loadCalls(false);
  });
  select.addEventListener("change", () => void loadCalls(false));
  byId("more-calls").addEventListener("click", () => void loadCalls(true));

  const dialog = byId<HTMLDialogElement>("agent-confirm");
  let pending: "terminate" | "token" | null = null;
  const ask = (action: "terminate" | "token") => {
    if (!agent) return;
    pending = action;
    byId("agent-confirm-title").textContent = action === "terminate" ? `Terminate ${agent.name}?` : `Issue a new token for ${agent.name}?`;
    byId("agent-confirm-text").textContent =
      action === "terminate"
        ? "The agent stops: its token is refused from now on and it cannot call tools again. This cannot be undone."
        : "The agent's current token stops working at once; the new one is shown here once.";
    byId("agent-confirm-ok").textContent = action === "terminate" ? "Terminate" : "Issue new token";
    dialog.showModal();
    byId("agent-confirm-cancel").focus();
  };
  byId("terminate").addEventListener("click", () => ask("terminate"));
  byId("new-token").addEventListener("click", () => ask("token"));
  byId("agent-confirm-cancel").addEventListener("click", () => dialog.close());
  byId("agent-confirm-ok").addEventListener("click", () => {
    dialog.close();
    const action = pending;
    if (!agent || !action) return;
    const button = byId<HTMLButtonElement>(action === "terminate" ? "terminate" : "new-token");
    void act(button, async () => {
      if (action === "terminate") {
        hideToken();
        const { cancelledCalls, ...terminated } = await api<Agent & { cancelledCalls: number }>("DELETE", "agents/" + segment(agent!.id));
        showAgent(terminated);
        void loadAgentTools(terminated.id, false);
        setMessage(
          byId("agent-result"),
          "Terminated: the agent's token is no longer accepted" +
            (cancelledCalls ? `, and its ${plural(cancelledCalls, "waiting call")} ${cancelledCalls === 1 ? "was" : "were"} cancelled.` : "."),
        );
        byId("agent-name").focus();
        await loadCalls(false);
      } else {
        const issued = await api<{ agent: Agent; token: string }>("POST", `agents/${segment(agent!.id)}/token`);
        showAgent(issued.agent);
        showToken(issued.agent.name, issued.token);
      }
    });
  });
}
