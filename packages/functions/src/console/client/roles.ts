import { api, failed } from "./api";
import { badge, byId, consoleHref, element, inputById, setMessage } from "./dom";
import type { Role } from "./types";

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

export async function loadRoles() {
  const status = byId("load-status");
  setMessage(status, "Loading the roles…");
  try {
    const { roles } = await api<{ roles: Role[] }>("GET", "roles");
    roles.sort((a, b) => (a.id === ROOT_ROLE_ID ? -1 : b.id === ROOT_ROLE_ID ? 1 : a.name.localeCompare(b.name)));
    byId("role-list").replaceChildren(
      ...roles.map((role) => {
        const creator = creatorText(role);
        return element("li", {}, [
          element("a", { href: consoleHref("/roles/" + encodeURIComponent(role.id)), text: role.name }),
          element("span", { className: "role-groups", text: groupsInBrief(role) }),
          usesAllGroups(role) ? badge("every group, including ones registered later", "warn") : null,
          role.toolLoading === "search" ? badge("tools by search") : null,
          creator ? badge(creator) : null,
        ]);
      }),
    );
    const deleted = new URLSearchParams(location.search).get("deleted");
    setMessage(status, deleted ? `The role "${deleted}" is deleted.` : roles.length ? "" : "There are no roles yet.");
  } catch (error) {
    failed(status, error);
  }
}

export function wireRolesPage() {
  const form = byId<HTMLFormElement>("create-role-form");
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
    const button = form.querySelector<HTMLButtonElement>("button[type=submit]")!;
    button.disabled = true;
    try {
      const role = await api<Role>("POST", "roles", { body: { name: name.value.trim(), rolePrompt: prompt.value } });
      location.assign(consoleHref("/roles/" + encodeURIComponent(role.id) + "?created=1"));
    } catch (error) {
      failed(problem, error);
      name.focus();
    } finally {
      button.disabled = false;
    }
  });
}
