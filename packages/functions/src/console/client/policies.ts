// The policies page: every Cedar policy by layer (system, then departments, roles and agents), each switched between
// enforce and log-only in one click; the editor (policy-edit.ts) opens on the same page.
import { api, ApiError, failed, newestOnly, segment } from "./api";
import { badge, byId, code, consoleHref, element, plural, setMessage, spaced } from "./dom";
import type { Child } from "./dom";
import { editPolicy, newPolicy, wirePolicyEditor } from "./policy-edit";
import { setChoices } from "./policy-form";
import { effectBadge, inputOf, modeBadge, modeText, problemText, SCOPE_ORDER, scopeParts } from "./policy-text";
import type { CedarPolicy, Role, ToolSummary } from "./types";

type Listed = { policies: CedarPolicy[]; revision: number };

let policies: CedarPolicy[] = [];
let roleNames = new Map<string, string>();
const listRequest = newestOnly();

const LAYER_HINTS = {
  system: "Apply to every agent.",
  department: "Apply to the agents of this department.",
  role: "Apply to the agents of this role.",
  agent: "Apply to this agent only.",
};

function layerTitle(scope: string): Child[] {
  const { kind, name } = scopeParts(scope);
  if (kind === "system") return ["System"];
  if (kind === "department") return ["Department ", name];
  if (kind === "role") return ["Role ", element("a", { href: consoleHref("/roles/" + encodeURIComponent(name)), text: roleNames.get(name) ?? name })];
  return ["Agent ", element("a", { href: consoleHref("/agents/" + encodeURIComponent(name)) }, [code(name)])];
}

function layerOrder(a: string, b: string) {
  const [first, second] = [scopeParts(a), scopeParts(b)];
  return SCOPE_ORDER.indexOf(first.kind) - SCOPE_ORDER.indexOf(second.kind) || first.name.localeCompare(second.name);
}

/** A policy that no longer validates against the catalog (a tool it names is gone, say): still in force, and failing closed. */
const problemsBlock = (policy: CedarPolicy) =>
  element("div", { className: "message message-error", "data-problems": "" }, [
    element("p", {}, [element("strong", { text: "Invalid against the catalog: " }), policy.problems.map(problemText).join("; "), "; it still fails closed."]),
    element("p", { text: "Edit it to fix it, or delete it: toolgate saves no invalid policy, in either mode." }),
  ]);

function policyItem(policy: CedarPolicy) {
  const titleId = "policy-" + policy.id;
  const badges = [effectBadge(policy.effect), modeBadge(policy.mode), policy.shipped ? badge("shipped", "fixed") : null, policy.rule ? badge("one-line rule") : null];
  return element("li", { className: "policy", "data-policy": policy.id }, [
    element("div", { className: "policy-head" }, [element("h3", { id: titleId }, [code(policy.id)]), ...spaced(badges.filter(Boolean))]),
    policy.description ? element("p", { text: policy.description }) : null,
    policy.reason ? element("p", { className: "policy-reason" }, ["Reason given to the agent: ", element("q", { text: policy.reason })]) : null,
    policy.problems.length ? problemsBlock(policy) : null,
    element("div", { className: "actions" }, [
      element("button", { type: "button", "data-edit": policy.id, "aria-describedby": titleId, text: "Edit" }),
      policy.problems.length
        ? null
        : element("button", { type: "button", "data-switch": policy.id, "aria-describedby": titleId, text: policy.mode === "enforce" ? "Switch to log-only" : "Switch to enforce" }),
    ]),
  ]);
}

function layerSection(scope: string, listed: CedarPolicy[], index: number) {
  const titleId = `policy-layer-${index}`;
  return element("section", { className: "policy-layer", "aria-labelledby": titleId, "data-scope": scope }, [
    element("h2", { id: titleId }, layerTitle(scope)),
    element("p", { className: "hint", text: LAYER_HINTS[scopeParts(scope).kind] }),
    element("ul", { className: "policy-list" }, listed.map(policyItem)),
  ]);
}

function showList({ policies: listed, revision }: Listed) {
  policies = listed;
  const layers = new Map<string, CedarPolicy[]>();
  for (const policy of listed) layers.set(policy.scope, [...(layers.get(policy.scope) ?? []), policy]);
  const scopes = [...layers.keys()].sort(layerOrder);
  byId("policy-layers").replaceChildren(...scopes.map((scope, index) => layerSection(scope, layers.get(scope)!, index)));
  byId("policy-revision").textContent = `${plural(listed.length, "policy", "policies")} at revision ${revision}.`;
  setMessage(byId("load-status"), listed.length ? "" : "There are no policies yet.");
}

async function refresh() {
  try {
    showList(await listRequest<Listed>("GET", "policies"));
  } catch (error) {
    failed(byId("load-status"), error);
  }
}

export async function loadPolicies() {
  const status = byId("load-status");
  setMessage(status, "Loading the policies…");
  try {
    const [listed, { roles }, { tools }] = await Promise.all([
      listRequest<Listed>("GET", "policies"),
      api<{ roles: Role[] }>("GET", "roles"),
      api<{ tools: ToolSummary[] }>("GET", "tools"),
    ]);
    roleNames = new Map(roles.map((role) => [role.id, role.name]));
    setChoices(tools.map((tool) => tool.name).sort(), roles);
    showList(listed);
  } catch (error) {
    failed(status, error);
  }
}

/** The same policy, stored again in the other mode; If-Match of the version listed, so a change made since is not overwritten. */
async function switchMode(policy: CedarPolicy, button: HTMLButtonElement) {
  const status = byId("policy-list-status");
  const mode = policy.mode === "enforce" ? "log_only" : "enforce";
  button.disabled = true;
  setMessage(status, `Switching ${policy.id} to ${modeText(mode)}…`);
  try {
    const saved = await api<CedarPolicy>("PUT", "policies/" + segment(policy.id), { body: inputOf(policy, mode), ifMatch: policy.version });
    await refresh();
    setMessage(status, `${saved.id} is now ${modeText(saved.mode)}, at version ${saved.version}.`);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status === 401) return failed(status, error);
    const conflict = error.code === "version_conflict";
    if (conflict) await refresh();
    setMessage(status, `Not switched. ${error.message}` + (conflict ? " The list now shows it as it is." : ""), "error");
  } finally {
    button.disabled = false;
  }
  byId("policy-layers").querySelector<HTMLButtonElement>(`button[data-switch="${policy.id}"]`)?.focus();
}

export function wirePoliciesPage() {
  byId("new-policy").addEventListener("click", newPolicy);
  wirePolicyEditor({
    saved: refresh,
    deleted: async (id) => {
      await refresh();
      setMessage(byId("policy-list-status"), `Deleted ${id}.`);
    },
    exists: (id) => policies.some((policy) => policy.id === id),
  });
  byId("policy-layers").addEventListener("click", (event) => {
    const button = (event.target as HTMLElement).closest<HTMLButtonElement>("button[data-edit], button[data-switch]");
    const policy = button && !button.disabled ? policies.find((candidate) => candidate.id === (button.dataset.edit ?? button.dataset.switch)) : undefined;
    if (!button || !policy) return;
    if (button.dataset.edit !== undefined) void editPolicy(policy.id, byId("policy-list-status"));
    else void switchMode(policy, button);
  });
}
