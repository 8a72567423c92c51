import { api, ApiError, failed, segment } from "./api";
import { badge, byId, code, consoleHref, element, fact, inputById, setMessage, tokensLabel } from "./dom";
import { executorNodes } from "./groups";
import type { GroupSummary, PolicyView, ToolPolicy, ToolSummary } from "./types";

/** The policy as short badges: what an operator scans for in a list. */
export function policyBadges(policy: PolicyView["policy"]): Array<Node | string> {
  const badges: HTMLElement[] = [];
  if (policy.disabled) badges.push(badge("disabled", "danger"));
  if (policy.dangerous) badges.push(badge("dangerous", "danger"));
  if (policy.requireConfirmation || policy.dangerous) badges.push(badge("needs approval", "warn"));
  if (policy.rateLimit?.perMinute) badges.push(badge(`${policy.rateLimit.perMinute}/min`));
  if (policy.rateLimit?.perHour) badges.push(badge(`${policy.rateLimit.perHour}/hour`));
  if (policy.allowedRoles?.length) badges.push(badge("roles: " + policy.allowedRoles.join(", ")));
  if (policy.allowedDepartments?.length) badges.push(badge("departments: " + policy.allowedDepartments.join(", ")));
  if (policy.minLevel !== undefined) badges.push(badge(`level ≥ ${policy.minLevel}`));
  if (policy.timeoutMs !== undefined) badges.push(badge(`timeout ${policy.timeoutMs} ms`));
  if (badges.length === 0) badges.push(badge("no limits", "ok"));
  return badges.flatMap((node, index) => (index === 0 ? [node] : [" ", node]));
}

let allTools: ToolSummary[] = [];

function toolRow(tool: ToolSummary, group: GroupSummary | undefined) {
  return element("tr", { "data-tool": tool.name }, [
    element("th", { scope: "row" }, [element("a", { href: consoleHref("/tools/" + encodeURIComponent(tool.name)) }, [code(tool.name)])]),
    element("td", {}, [code(tool.group)]),
    element("td", {}, group ? executorNodes(group.executor).slice(0, 1) : ["—"]),
    element("td", { className: "policy-cell" }, [...policyBadges(tool.policy), ...(tool.overridden ? [" ", badge("changed by an admin", "fixed")] : [])]),
    element("td", { className: "number", text: tokensLabel(tool.tokens) }),
  ]);
}

function applyFilter() {
  const text = inputById("tool-filter").value.trim().toLowerCase();
  const group = byId<HTMLSelectElement>("tool-group-filter").value;
  let shown = 0;
  for (const row of document.querySelectorAll<HTMLTableRowElement>("#tool-rows > tr")) {
    const tool = allTools.find((candidate) => candidate.name === row.dataset.tool);
    const visible = !!tool && (!group || tool.group === group) && (!text || tool.name.toLowerCase().includes(text) || tool.description.toLowerCase().includes(text));
    row.hidden = !visible;
    if (visible) shown++;
  }
  byId("tool-count").textContent = `${shown} of ${allTools.length} tools`;
}

export async function loadTools() {
  const status = byId("load-status");
  setMessage(status, "Loading the tools…");
  try {
    const [{ tools }, { groups }] = await Promise.all([api<{ tools: ToolSummary[] }>("GET", "tools"), api<{ groups: GroupSummary[] }>("GET", "groups")]);
    allTools = tools;
    const byGroup = new Map(groups.map((group) => [group.id, group]));
    const select = byId<HTMLSelectElement>("tool-group-filter");
    select.replaceChildren(element("option", { value: "", text: "All groups" }), ...groups.map((group) => element("option", { value: group.id, text: group.id })));
    byId("tool-rows").replaceChildren(...tools.map((tool) => toolRow(tool, byGroup.get(tool.group))));
    applyFilter();
    setMessage(status, tools.length ? "" : "No tools are registered.");
  } catch (error) {
    failed(status, error);
  }
}

export function wireToolsPage() {
  inputById("tool-filter").addEventListener("input", applyFilter);
  byId("tool-group-filter").addEventListener("change", applyFilter);
}

// One tool

let tool: PolicyView | null = null;

const toolName = () => document.body.dataset.toolName ?? "";
const list = (text: string) => text.split(",").map((item) => item.trim()).filter(Boolean);
const numberOrNull = (input: HTMLInputElement) => (input.value.trim() === "" ? null : Number(input.value));
const sameList = (a: string[] | undefined, b: string[]) => (a ?? []).length === b.length && b.every((item) => (a ?? []).includes(item));

function policyFacts(view: PolicyView, group: GroupSummary | undefined) {
  const policy = view.policy;
  const yes = (value: boolean | undefined) => (value ? "yes" : "no");
  return [
    ...fact("Group", element("a", { href: consoleHref("/groups") }, [code(view.group)])),
    ...fact("Executor", ...(group ? executorNodes(group.executor) : ["—"])),
    ...fact("State", policy.disabled ? badge("disabled: agents cannot call it", "danger") : badge("enabled", "ok")),
    ...fact("Dangerous", yes(policy.dangerous)),
    ...fact("Needs approval", policy.dangerous || policy.requireConfirmation ? "yes: each call waits for an operator" : "no"),
    ...fact("Rate limits", policy.rateLimit?.perMinute || policy.rateLimit?.perHour
      ? [policy.rateLimit.perMinute ? `${policy.rateLimit.perMinute} a minute` : null, policy.rateLimit.perHour ? `${policy.rateLimit.perHour} an hour` : null].filter(Boolean).join(", ")
      : "none"),
    ...fact("Allowed roles", policy.allowedRoles?.length ? policy.allowedRoles.join(", ") : "any"),
    ...fact("Allowed departments", policy.allowedDepartments?.length ? policy.allowedDepartments.join(", ") : "any"),
    ...fact("Minimum level", policy.minLevel === undefined ? "none" : String(policy.minLevel)),
    ...fact("Timeout", policy.timeoutMs === undefined ? "the executor's or toolgate's default" : `${policy.timeoutMs} ms`),
    ...fact("Override", Object.keys(view.override?.policy ?? {}).length ? "an admin changed this tool's policy" : "none: the tool's own policy applies"),
  ];
}

function fillForm(policy: ToolPolicy) {
  inputById("policy-dangerous").checked = policy.dangerous === true;
  inputById("policy-confirmation").checked = policy.requireConfirmation === true;
  inputById("policy-per-minute").value = policy.rateLimit?.perMinute?.toString() ?? "";
  inputById("policy-per-hour").value = policy.rateLimit?.perHour?.toString() ?? "";
  inputById("policy-roles").value = (policy.allowedRoles ?? []).join(", ");
  inputById("policy-departments").value = (policy.allowedDepartments ?? []).join(", ");
  inputById("policy-min-level").value = policy.minLevel?.toString() ?? "";
  inputById("policy-timeout").value = policy.timeoutMs?.toString() ?? "";
}

/** The form's differences from the policy as it is, as a JSON Merge Patch (null: back to the tool's own value). */
function policyPatch(policy: ToolPolicy) {
  const patch: Record<string, unknown> = {};
  const dangerous = inputById("policy-dangerous").checked;
  const confirmation = inputById("policy-confirmation").checked;
  if (dangerous !== (policy.dangerous === true)) patch.dangerous = dangerous;
  if (confirmation !== (policy.requireConfirmation === true)) patch.requireConfirmation = confirmation;
  const perMinute = numberOrNull(inputById("policy-per-minute"));
  const perHour = numberOrNull(inputById("policy-per-hour"));
  if (perMinute !== (policy.rateLimit?.perMinute ?? null) || perHour !== (policy.rateLimit?.perHour ?? null))
    patch.rateLimit = perMinute === null && perHour === null ? null : { perMinute, perHour };
  const roles = list(inputById("policy-roles").value);
  if (!sameList(policy.allowedRoles, roles)) patch.allowedRoles = roles.length ? roles : null;
  const departments = list(inputById("policy-departments").value);
  if (!sameList(policy.allowedDepartments, departments)) patch.allowedDepartments = departments.length ? departments : null;
  const minLevel = numberOrNull(inputById("policy-min-level"));
  if (minLevel !== (policy.minLevel ?? null)) patch.minLevel = minLevel;
  const timeoutMs = numberOrNull(inputById("policy-timeout"));
  if (timeoutMs !== (policy.timeoutMs ?? null)) patch.timeoutMs = timeoutMs;
  return patch;
}

let groups: GroupSummary[] = [];

function showTool(view: PolicyView) {
  tool = view;
  document.title = view.name + " · toolgate console";
  byId("tool-name").textContent = view.name;
  byId("tool-description").textContent = view.definition?.function.description ?? "";
  byId("tool-facts").replaceChildren(...policyFacts(view, groups.find((group) => group.id === view.group)));
  byId("toggle-tool").textContent = view.policy.disabled ? "Enable" : "Disable";
  fillForm(view.policy);
}

export async function loadTool() {
  const status = byId("load-status");
  setMessage(status, "Loading the tool…");
  try {
    const [view, listed] = await Promise.all([api<PolicyView>("GET", "tools/" + segment(toolName())), api<{ groups: GroupSummary[] }>("GET", "groups")]);
    groups = listed.groups;
    showTool(view);
    byId("tool").hidden = false;
    setMessage(status, "");
  } catch (error) {
    failed(status, error);
  }
}

async function reloadTool() {
  showTool(await api<PolicyView>("GET", "tools/" + segment(toolName())));
}

export function wireToolPage() {
  const result = byId("policy-status");
  byId("toggle-tool").addEventListener("click", async (event) => {
    if (!tool) return;
    const button = event.currentTarget as HTMLButtonElement;
    button.disabled = true;
    const disabling = !tool.policy.disabled;
    try {
      await api("POST", `tools/${segment(tool.name)}/${disabling ? "disable" : "enable"}`);
      await reloadTool();
      setMessage(result, disabling ? "Disabled: agents can no longer call this tool." : "Enabled: agents whose role and policy allow it can call this tool again.");
    } catch (error) {
      failed(result, error);
    } finally {
      button.disabled = false;
    }
  });
  byId("policy-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!tool) return;
    const patch = policyPatch(tool.policy);
    if (Object.keys(patch).length === 0) {
      setMessage(result, "Nothing changed: the form is the policy as it is.");
      return;
    }
    const button = byId<HTMLButtonElement>("policy-save");
    button.disabled = true;
    setMessage(result, "Saving…");
    try {
      const saved = await api<PolicyView & { message?: string }>("PATCH", `tools/${segment(tool.name)}/policy`, { body: patch });
      await reloadTool();
      setMessage(result, "Saved. " + (saved.message ?? ""));
    } catch (error) {
      if (error instanceof ApiError && error.status !== 401) setMessage(result, "Not saved. " + error.message, "error");
      else failed(result, error);
    } finally {
      button.disabled = false;
    }
  });
}
