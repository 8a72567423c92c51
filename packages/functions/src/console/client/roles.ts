import { api, failed } from "./api";
import { badge, byId, consoleHref, element, inputById, setMessage, tokensLabel } from "./dom";
import { groupChoice, sumTokens } from "./group-choice";
import type { GroupSummary, Role } from "./types";

export const ROOT_ROLE_ID = "root";

export const usesAllGroups = (role: Role) => role.id !== ROOT_ROLE_ID && (!role.toolGroups || role.toolGroups.length === 0);

function groupsInBrief(role: Role) {
  if (role.id === ROOT_ROLE_ID) return "org_management (read-only)";
  if (usesAllGroups(role)) return "All tool groups";
  return role.toolGroups!.join(", ");
}

/** Who made the role: the admin, or an agent (through create_role). */
export const creatorText = (role: Role) =>
  !role.createdBy || role.createdBy === "admin" || role.createdBy === "system" ? null : `created by agent ${role.createdBy}`;

let groups: GroupSummary[] = [];

function showRoles(roles: Role[]) {
  roles.sort((a, b) => (a.id === ROOT_ROLE_ID ? -1 : b.id === ROOT_ROLE_ID ? 1 : a.name.localeCompare(b.name)));
  byId("role-list").replaceChildren(
    ...roles.map((role) => {
      const creator = creatorText(role);
      return element("li", {}, [
        element("a", { href: consoleHref("/roles/" + encodeURIComponent(role.id)), text: role.name }),
        element("span", { className: "role-groups", text: groupsInBrief(role) }),
        element("span", { className: "badge badge-tokens", "data-tokens": "", title: "What this role's tools cost in each agent's context", text: tokensLabel(role.toolTokens) }),
        usesAllGroups(role) ? badge("every group, including ones registered later", "warn") : null,
        role.toolLoading === "search" ? badge("tools by search") : null,
        creator ? badge(creator) : null,
      ]);
    }),
  );
}

const everyGroup = () => inputById("new-role-every-group");
const tickedGroups = () => Array.from(document.querySelectorAll<HTMLInputElement>("#new-role-group-options input[name=toolGroups]:checked"), (input) => input.value);

/** The create form's groups as they stand: every group (a choice of its own, with its warning), or the ticked ones and what they cost. */
function describeChoice() {
  const every = everyGroup().checked;
  byId("every-group-warning").hidden = !every;
  byId("new-role-groups").classList.toggle("every-group-chosen", every);
  for (const input of document.querySelectorAll<HTMLInputElement>("#new-role-group-options input[name=toolGroups]")) input.disabled = every;
  const ticked = tickedGroups();
  byId("new-role-tokens").textContent = every
    ? `Tool context: about ${tokensLabel(sumTokens(groups))} for each of its agents now, more as groups are registered.`
    : ticked.length
      ? `Tool context: about ${tokensLabel(sumTokens(groups.filter((group) => ticked.includes(group.id))))} for each of its agents.`
      : "";
}

function showGroupChoices(listed: GroupSummary[]) {
  const ticked = new Set(tickedGroups());
  groups = listed;
  byId("new-role-group-options").replaceChildren(...listed.map((group) => groupChoice(group, { key: "new-group-", checked: ticked.has(group.id), disabled: false })));
  describeChoice();
}

export async function loadRoles() {
  const status = byId("load-status");
  setMessage(status, "Loading the roles…");
  try {
    const [{ roles }, listed] = await Promise.all([api<{ roles: Role[] }>("GET", "roles"), api<{ groups: GroupSummary[] }>("GET", "groups")]);
    showRoles(roles);
    showGroupChoices(listed.groups);
    const deleted = new URLSearchParams(location.search).get("deleted");
    setMessage(status, deleted ? `The role "${deleted}" is deleted.` : roles.length ? "" : "There are no roles yet.");
  } catch (error) {
    failed(status, error);
  }
}

/** The groups to create the role with: the ticked ones, null for every group, or undefined when nothing was chosen. */
function chosenGroups(): string[] | null | undefined {
  if (everyGroup().checked) return null;
  const ticked = tickedGroups();
  return ticked.length ? ticked : undefined;
}

export function wireRolesPage() {
  const form = byId<HTMLFormElement>("create-role-form");
  byId("new-role-groups").addEventListener("change", describeChoice);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const problem = byId("create-role-error");
    const name = inputById("new-role-name");
    const prompt = byId<HTMLTextAreaElement>("new-role-prompt");
    setMessage(problem, "");
    if (!name.value.trim()) {
      setMessage(problem, "Give the role a name.", "error");
      name.focus();
      return;
    }
    const toolGroups = chosenGroups();
    if (toolGroups === undefined) {
      setMessage(problem, "Choose the tool groups this role's agents may use: tick at least one, or choose every tool group.", "error");
      (document.querySelector<HTMLInputElement>("#new-role-group-options input") ?? everyGroup()).focus();
      return;
    }
    const button = form.querySelector<HTMLButtonElement>("button[type=submit]")!;
    button.disabled = true;
    try {
      const role = await api<Role>("POST", "roles", { body: { name: name.value.trim(), rolePrompt: prompt.value, toolGroups } });
      location.assign(consoleHref("/roles/" + encodeURIComponent(role.id) + "?created=1"));
    } catch (error) {
      failed(problem, error);
      name.focus();
    } finally {
      button.disabled = false;
    }
  });
}
