// The policy editor's fields: filled from a stored policy, read back as the body of PUT /policies/:id.
import { byId, element, formatTime, inputById } from "./dom";
import { POLICY_ID, scopeParts } from "./policy-text";
import type { PolicyMode, ScopeKind } from "./policy-text";
import type { CedarPolicy, PolicyInput, Role } from "./types";

type Written = "rule" | "cedar";
export type Draft = { draft: PolicyInput } | { missing: string; field: string };

const SCOPE_LABELS: Record<Exclude<ScopeKind, "system">, string> = { department: "Department", role: "Role id", agent: "Agent id" };

let roles: Role[] = [];
/** The Cedar the rule stood for at the last check: the start of the text when the operator switches to Cedar. */
let compiled = "";

export const policyForm = () => byId<HTMLFormElement>("policy-form");
export const cedarInput = () => byId<HTMLTextAreaElement>("policy-cedar");
const checked = (name: string) => policyForm().querySelector<HTMLInputElement>(`input[name="${name}"]:checked`)?.value;
const check = (name: string, value: string) => {
  for (const input of policyForm().querySelectorAll<HTMLInputElement>(`input[name="${name}"]`)) input.checked = input.value === value;
};
const scopeKind = () => byId<HTMLSelectElement>("policy-scope-kind").value as ScopeKind;
export const written = () => (checked("policy-written") ?? "rule") as Written;
export const draftMode = () => (checked("policy-mode") ?? "enforce") as PolicyMode;
const value = (id: string) => inputById(id).value.trim();

export function setChoices(tools: string[], listed: Role[]) {
  roles = listed;
  byId("policy-tool-options").replaceChildren(...tools.map((tool) => element("option", { value: tool })));
  showScopeField();
}

export const keepCompiled = (cedar: string) => {
  compiled = cedar;
};

export function showScopeField() {
  const kind = scopeKind();
  byId("policy-scope-name-field").hidden = kind === "system";
  if (kind !== "system") byId("policy-scope-name-label").textContent = SCOPE_LABELS[kind];
  byId("policy-scope-options").replaceChildren(...(kind === "role" ? roles.map((role) => element("option", { value: role.id, label: role.name })) : []));
}

export function showWritten() {
  const rule = written() === "rule";
  byId("policy-rule-fields").hidden = !rule;
  byId("policy-cedar-field").hidden = rule;
  if (!rule && !cedarInput().value.trim() && compiled) cedarInput().value = compiled;
  if (!rule) byId("policy-compiled").hidden = true;
}

/** Puts a stored policy in the form, or clears it for a new one. */
export function fillForm(policy: CedarPolicy | null) {
  policyForm().reset();
  const { kind, name } = scopeParts(policy?.scope ?? "system");
  byId<HTMLSelectElement>("policy-scope-kind").value = kind;
  inputById("policy-scope-name").value = name;
  check("policy-mode", policy?.mode ?? "enforce");
  byId<HTMLTextAreaElement>("policy-description").value = policy?.description ?? "";
  const rule = policy?.rule;
  check("policy-written", !policy || rule ? "rule" : "cedar");
  inputById("policy-tool").value = rule?.tool ?? "";
  inputById("policy-argument").value = rule?.argument ?? "";
  inputById("policy-match").value = rule?.match ?? "";
  byId<HTMLSelectElement>("policy-effect").value = rule?.effect ?? "deny";
  inputById("policy-reason").value = rule?.reason ?? "";
  inputById("policy-recoverable").checked = rule?.recoverable === true;
  cedarInput().value = policy?.cedar ?? "";
  compiled = rule ? policy!.cedar : "";
  const id = inputById("policy-id");
  id.value = policy?.id ?? "";
  id.readOnly = policy !== null;
  byId("policy-form-title").textContent = policy ? `Edit ${policy.id}` : "New policy";
  byId("policy-form-version").textContent = policy
    ? `Version ${policy.version}, last changed ${formatTime(policy.updatedAt)}` + (policy.shipped ? "; shipped with toolgate." : ".")
    : "";
  byId("policy-delete").hidden = policy === null;
  byId("policy-compiled").hidden = true;
  showScopeField();
  showWritten();
}

/** The id typed for a new policy (a stored one keeps its own), or why it cannot be one. */
export function draftId(): { id: string } | { missing: string; field: string } {
  const id = value("policy-id");
  return POLICY_ID.test(id) ? { id } : { missing: 'Give the policy an id: 1 to 64 letters, digits, "_", "." or "-".', field: "policy-id" };
}

/** The form as a PUT body, or the first field still to fill in. */
export function readDraft(): Draft {
  const kind = scopeKind();
  const name = value("policy-scope-name");
  if (kind !== "system" && !name) return { missing: `Name the ${SCOPE_LABELS[kind].toLowerCase()} the policy applies to.`, field: "policy-scope-name" };
  const description = byId<HTMLTextAreaElement>("policy-description").value.trim();
  const fields = { scope: kind === "system" ? "system" : `${kind}:${name}`, mode: draftMode(), ...(description ? { description } : {}) };
  if (written() === "cedar") {
    const cedar = cedarInput().value;
    return cedar.trim() ? { draft: { ...fields, cedar } } : { missing: "Write the Cedar policy.", field: "policy-cedar" };
  }
  const tool = value("policy-tool");
  const match = inputById("policy-match").value;
  if (!tool) return { missing: "Name the tool the rule is about.", field: "policy-tool" };
  if (!match.trim()) return { missing: 'Give the glob the rule matches, such as "git push *".', field: "policy-match" };
  const argument = value("policy-argument");
  const reason = value("policy-reason");
  const rule = {
    tool,
    match,
    effect: byId<HTMLSelectElement>("policy-effect").value as CedarPolicy["effect"],
    ...(argument ? { argument } : {}),
    ...(reason ? { reason } : {}),
    ...(inputById("policy-recoverable").checked ? { recoverable: true } : {}),
  };
  return { draft: { ...fields, rule } };
}
