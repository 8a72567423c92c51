import { api, ApiError, failed, segment } from "./api";
import { badge, byId, code, element, fact, inputById, plural, revealHashTarget, setMessage, spaced, tokensLabel } from "./dom";
import { sourceName, toolsLabel } from "./group-choice";
import { scopeNodes, scopeText } from "./scope";
import type { ExecutorSummary, GroupSummary } from "./types";

const EXECUTORS: Record<string, string> = {
  native: "toolgate runs these tools itself",
  client: "the agent's own runtime runs these tools",
  http: "an HTTP endpoint",
  mcp: "an MCP server",
};

type Executor = { type: string; url?: string; [key: string]: unknown };
type FullGroup = { id: string; scope: string; description: string; executor?: Executor; tools: unknown[] };

let groups: GroupSummary[] = [];
/** The executor of the group being edited, as stored: kept whole (its headers too) unless its type or URL is changed. */
let editedExecutor: Executor | undefined;

/** The executor as a sentence part, and whether there is none (the group's tools cannot run). */
export function executorNodes(executor: ExecutorSummary | null | undefined) {
  if (!executor) return [badge("no executor", "danger"), " nothing is bound to run these tools, so calls to them are refused"];
  return [badge(executor.type), " " + (EXECUTORS[executor.type] ?? executor.type), executor.url ? " " : null, executor.url ? code(executor.url) : null];
}

function groupCard(group: GroupSummary) {
  const facts = [...fact("For", ...scopeNodes(group.scope))];
  facts.push(...fact("Source", sourceName(group.source) + (group.reserved ? " (reserved id)" : "")));
  if (group.module) facts.push(...fact("Module", code(group.module)));
  facts.push(...fact("Executor", ...executorNodes(group.executor)));
  facts.push(...fact("Tools", ...spaced([toolsLabel(group.toolCount), ...group.tools.map((name) => code(name))])));
  facts.push(...fact("Context", element("span", { className: "badge badge-tokens", "data-tokens": "", text: tokensLabel(group.tokens) }), " in each agent's context when a role uses it"));
  const edit = group.source === "api" ? element("button", { type: "button", className: "button-quiet", text: "Edit", "aria-label": `Edit ${group.id}` }) : null;
  edit?.addEventListener("click", () => void editGroup(group.id));
  return element("li", { id: "group-" + group.id, "data-group": group.id, className: group.executor === null ? "group-card group-card-warn" : "group-card" }, [
    element("h2", { text: group.id }),
    element("p", { className: "group-desc", text: group.description }),
    element("dl", {}, facts),
    edit,
  ]);
}

function showGroups() {
  const scope = byId<HTMLSelectElement>("group-scope-filter").value;
  const shown = groups.filter((group) => scope === "" || group.scope === scope);
  byId("group-list").replaceChildren(...shown.map(groupCard));
  byId("group-count").textContent = scope === "" ? "" : `${plural(shown.length, "group")} for ${scopeText(scope)}`;
}

function fillScopeFilter() {
  const select = byId<HTMLSelectElement>("group-scope-filter");
  const chosen = select.value;
  const scopes = [...new Set(groups.map((group) => group.scope))].filter((scope) => scope !== "system").sort();
  select.replaceChildren(
    element("option", { value: "", text: "Everyone, departments and agents" }),
    element("option", { value: "system", text: "Everyone" }),
    ...scopes.map((scope) => element("option", { value: scope, text: scopeText(scope).replace(/^the /, "") })),
  );
  select.value = [...select.options].some((option) => option.value === chosen) ? chosen : "";
}

export async function loadGroups() {
  const status = byId("load-status");
  setMessage(status, "Loading the tool groups…");
  try {
    ({ groups } = await api<{ groups: GroupSummary[] }>("GET", "groups"));
    fillScopeFilter();
    showGroups();
    setMessage(status, groups.length ? "" : "No tool groups are registered.");
    revealHashTarget();
  } catch (error) {
    failed(status, error);
  }
}

const scopeKind = () => byId<HTMLFormElement>("group-form").querySelector<HTMLInputElement>("input[name=scopeKind]:checked")?.value ?? "system";

function syncScopeInputs() {
  inputById("group-department").disabled = scopeKind() !== "department";
  inputById("group-agent").disabled = scopeKind() !== "agent";
}

function setScope(scope: string) {
  const at = scope.indexOf(":");
  const kind = at < 0 ? "system" : scope.slice(0, at);
  inputById(`group-scope-${kind}`).checked = true;
  inputById("group-department").value = kind === "department" ? scope.slice(at + 1) : "";
  inputById("group-agent").value = kind === "agent" ? scope.slice(at + 1) : "";
  syncScopeInputs();
}

async function editGroup(id: string) {
  const problem = byId("group-form-error");
  setMessage(problem, "");
  setMessage(byId("group-form-status"), "");
  try {
    const group = await api<FullGroup>("GET", "groups/" + segment(id));
    inputById("group-id").value = group.id;
    byId<HTMLTextAreaElement>("group-description").value = group.description;
    setScope(group.scope);
    editedExecutor = group.executor;
    byId<HTMLSelectElement>("group-executor-type").value = group.executor?.type ?? "http";
    inputById("group-executor-url").value = group.executor?.url ?? "";
    byId<HTMLTextAreaElement>("group-tools").value = JSON.stringify(group.tools, null, 2);
    byId("group-form-title").textContent = `Change ${group.id}`;
    byId("group-form-title").focus();
  } catch (error) {
    failed(problem, error);
  }
}

/** The form as PUT /groups/:id takes it, or a sentence saying what to fix. */
function groupBody(): { id: string; body: Record<string, unknown> } | string {
  const id = inputById("group-id").value.trim();
  if (!id) return "Give the group an id.";
  const kind = scopeKind();
  const named = kind === "department" ? inputById("group-department").value.trim() : kind === "agent" ? inputById("group-agent").value.trim() : "";
  if (kind !== "system" && !named) return kind === "department" ? "Name the department the group is for." : "Give the id of the agent the group is for.";
  const type = byId<HTMLSelectElement>("group-executor-type").value;
  const url = inputById("group-executor-url").value.trim();
  if (type !== "client" && !url) return "Give the URL of what runs the group's tools.";
  const executor = editedExecutor && editedExecutor.type === type && (editedExecutor.url ?? "") === url ? editedExecutor : type === "client" ? { type } : { type, url };
  const toolsText = byId<HTMLTextAreaElement>("group-tools").value.trim();
  let tools: unknown;
  if (toolsText) {
    try {
      tools = JSON.parse(toolsText);
    } catch (error) {
      return `The tools are not valid JSON: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  const body = { description: byId<HTMLTextAreaElement>("group-description").value.trim(), scope: kind === "system" ? "system" : `${kind}:${named}`, executor, ...(tools === undefined ? {} : { tools }) };
  return { id, body };
}

function clearForm() {
  editedExecutor = undefined;
  byId("group-form-title").textContent = "Register a group";
  window.setTimeout(syncScopeInputs);
}

export function wireGroupsPage() {
  byId("group-scope-filter").addEventListener("change", showGroups);
  const form = byId<HTMLFormElement>("group-form");
  form.addEventListener("change", (event) => {
    if ((event.target as HTMLInputElement).name === "scopeKind") syncScopeInputs();
  });
  form.addEventListener("reset", clearForm);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const problem = byId("group-form-error");
    const status = byId("group-form-status");
    setMessage(problem, "");
    setMessage(status, "");
    const request = groupBody();
    if (typeof request === "string") return setMessage(problem, request, "error");
    const button = byId<HTMLButtonElement>("group-save");
    button.disabled = true;
    try {
      const saved = await api<FullGroup & { warning?: string }>("PUT", "groups/" + segment(request.id), { body: request.body });
      form.reset();
      clearForm();
      await loadGroups();
      setMessage(status, `${saved.warning ? "Replaced" : "Registered"} ${saved.id} for ${scopeText(saved.scope)}, with ${plural(saved.tools.length, "tool")}.`);
      document.getElementById("group-" + saved.id)?.scrollIntoView({ block: "center" });
    } catch (error) {
      if (error instanceof ApiError && error.status !== 401) setMessage(problem, error.message, "error");
      else failed(problem, error);
    } finally {
      button.disabled = false;
    }
  });
}
