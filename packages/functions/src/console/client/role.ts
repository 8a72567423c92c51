import { api, ApiError, failed, segment } from "./api";
import { badge, byId, consoleHref, element, formatTime, inputById, setMessage, tokensLabel } from "./dom";
import { groupChoice, sumTokens } from "./group-choice";
import { creatorText, ROOT_ROLE_ID } from "./roles";
import type { GroupSummary, Role, ToolSummary } from "./types";

let current: Role | null = null;
let groups: GroupSummary[] = [];
let tools: ToolSummary[] = [];
let pinnedChoice = new Set<string>();
let saving = false;

const roleId = () => document.body.dataset.roleId ?? "";
const tickedGroups = () => Array.from(document.querySelectorAll<HTMLInputElement>("#groups-form input[name=toolGroups]:checked"), (input) => input.value);
const chosenLoading = () => document.querySelector<HTMLInputElement>("#groups-form input[name=toolLoading]:checked")?.value ?? "all";
const chosenQuestions = () => (document.querySelector<HTMLInputElement>("#groups-form input[name=questions]:checked")?.value ?? "user") as "user" | "operator";

/** Tools that can be pinned: those of the ticked groups (no box ticked: every group). */
function pinnableTools() {
  const ticked = tickedGroups();
  return ticked.length === 0 ? tools : tools.filter((tool) => ticked.includes(tool.group));
}
const chosenPins = () => pinnableTools().filter((tool) => pinnedChoice.has(tool.name));
const samePins = (names: string[]) => {
  const chosen = chosenPins().map((tool) => tool.name);
  return chosen.length === names.length && chosen.every((name) => names.includes(name));
};
const sameGroups = (a: string[], b: string[]) => a.length === b.length && a.every((id) => b.includes(id));

const groupOption = (group: GroupSummary, checked: boolean, readOnly: boolean) => groupChoice(group, { key: "group-", checked, disabled: readOnly, fixed: readOnly && checked });

function unavailableOption(groupId: string, readOnly: boolean) {
  const key = "missing-" + groupId;
  const input = element("input", { type: "checkbox", id: key, name: "toolGroups", value: groupId, "aria-describedby": key + "-description" });
  input.checked = true;
  input.disabled = readOnly;
  return element("li", {}, [
    input,
    element("div", { className: "group-head" }, [element("label", { for: key, text: groupId }), badge("unavailable", "warn")]),
    element("p", { className: "group-desc", id: key + "-description", text: "Unavailable: this group is no longer registered, so it gives the role no tools." }),
  ]);
}

const unsaved = () =>
  current !== null &&
  (!sameGroups(tickedGroups(), current.toolGroups || []) ||
    chosenLoading() !== (current.toolLoading || "all") ||
    chosenQuestions() !== (current.questions || "user") ||
    !samePins(current.pinnedTools || []));

/** What the form as it stands would cost: the ticked groups' tokens (no box: every group), or in search mode the pins and the two search tools. */
function previewTokens() {
  if (chosenLoading() === "search") return Number(current?.loadingTokens?.searchTools ?? 0) + sumTokens(chosenPins());
  const ticked = tickedGroups();
  return sumTokens(ticked.length === 0 ? groups : groups.filter((group) => ticked.includes(group.id)));
}

/** The role's tool context: as saved (from the server), or, while the form changes, what it would cost if saved. */
function describeTokens() {
  const line = byId("groups-tokens");
  if (!current) {
    line.textContent = "";
    return;
  }
  if (!unsaved()) {
    const all = current.loadingTokens ? current.loadingTokens.all : current.toolTokens;
    line.textContent =
      `Tool context: ${tokensLabel(current.toolTokens)} for each of this role's agents` +
      (current.toolLoading === "search" ? ` (loading all its tools would take ${tokensLabel(all)}).` : ".");
    return;
  }
  line.textContent = `Tool context if saved: about ${tokensLabel(previewTokens())} for each of this role's agents (now ${tokensLabel(current.toolTokens)}).`;
}

function pinOption(tool: ToolSummary, readOnly: boolean) {
  const key = "pin-" + tool.name;
  const input = element("input", { type: "checkbox", id: key, name: "pinnedTools", value: tool.name });
  input.checked = pinnedChoice.has(tool.name);
  input.disabled = readOnly;
  return element("li", {}, [input, element("label", { for: key }, [element("code", { text: tool.name })]), badge(tokensLabel(tool.tokens), "tokens")]);
}

/** The pin boxes of the ticked groups' tools, shown in search mode only. */
function showPins() {
  const search = chosenLoading() === "search";
  byId("pinned").hidden = !search;
  const readOnly = !current || current.id === ROOT_ROLE_ID;
  byId("pinned-options").replaceChildren(...(search ? pinnableTools().map((tool) => pinOption(tool, readOnly)) : []));
}

function describeGroups() {
  describeTokens();
  const summary = byId("groups-summary");
  if (!current || current.id === ROOT_ROLE_ID) {
    summary.textContent = "";
    return;
  }
  const ticked = tickedGroups();
  const saved = current.toolGroups || [];
  if (!sameGroups(ticked, saved)) {
    summary.textContent =
      "Unsaved change: " +
      (ticked.length === 0
        ? "with no group ticked, the role will use all tool groups, including ones registered later."
        : "the role will use only the " + (ticked.length === 1 ? "ticked group." : ticked.length + " ticked groups.")) +
      " Press Save to keep it.";
    return;
  }
  if (unsaved()) {
    const pins = chosenPins().length;
    summary.textContent =
      "Unsaved change: " +
      (chosenLoading() === "search"
        ? `agents will keep ${pins} pinned ${pins === 1 ? "tool" : "tools"} in context and find the rest with search_tools.`
        : "agents will have every tool of the role in context.") +
      " Press Save to keep it.";
    return;
  }
  const effective = current.effectiveToolGroups || [];
  summary.textContent =
    saved.length === 0
      ? `This role names no tool groups, so it uses all tool groups (${effective.length} registered now), including ones registered later.`
      : "This role's agents see only the tools of its ticked groups" +
        (effective.length ? ": " + effective.join(", ") + "." : ". None of them is registered now, so they see no tools.");
}

function showRole(role: Role) {
  current = role;
  const readOnly = role.id === ROOT_ROLE_ID;
  document.title = role.name + " · toolgate console";
  byId("role-name").textContent = role.name;
  byId("role-id").textContent = role.id;
  byId("role-version").textContent = String(role.version);
  byId("role-updated").replaceChildren(element("time", { datetime: role.updatedAt, text: formatTime(role.updatedAt) }));
  byId("role-created-by").textContent = creatorText(role) ?? (role.createdBy === "system" ? "toolgate" : "an admin");
  const prompt = byId("role-prompt");
  prompt.textContent = role.rolePrompt || "This role has no prompt.";
  prompt.classList.toggle("empty", !role.rolePrompt);
  const named = role.toolGroups || [];
  const registered = new Set(groups.map((group) => group.id));
  const missing = named.filter((groupId) => !registered.has(groupId));
  byId("group-options").replaceChildren(...groups.map((group) => groupOption(group, named.includes(group.id), readOnly)));
  byId("unavailable-options").replaceChildren(...missing.map((groupId) => unavailableOption(groupId, readOnly)));
  byId("unavailable").hidden = missing.length === 0;
  pinnedChoice = new Set(role.pinnedTools || []);
  for (const input of document.querySelectorAll<HTMLInputElement>("#groups-form input[name=toolLoading]")) {
    input.checked = input.value === (role.toolLoading || "all");
    input.disabled = readOnly;
  }
  for (const input of document.querySelectorAll<HTMLInputElement>("#groups-form input[name=questions]")) {
    input.checked = input.value === (role.questions || "user");
    input.disabled = readOnly;
  }
  showPins();
  byId("root-note").hidden = !readOnly;
  byId("groups-form").classList.toggle("read-only", readOnly);
  byId("save-actions").hidden = readOnly;
  byId("role-actions").hidden = readOnly;
  describeGroups();
}

function clearSaveMessages() {
  setMessage(byId("save-status"), "");
  byId("save-problem").hidden = true;
  byId("save-error").textContent = "";
  byId("reload").hidden = true;
}

export async function loadRole() {
  const status = byId("load-status");
  setMessage(status, "Loading the role…");
  try {
    const [role, listed, catalog] = await Promise.all([
      api<Role>("GET", "roles/" + segment(roleId())),
      api<{ groups: GroupSummary[] }>("GET", "groups"),
      api<{ tools: ToolSummary[] }>("GET", "tools"),
    ]);
    groups = listed.groups;
    tools = catalog.tools;
    showRole(role);
    byId("role").hidden = false;
    setMessage(status, new URLSearchParams(location.search).has("created") ? "Role created with the tool groups you chose. You can change them here." : "");
    return true;
  } catch (error) {
    failed(status, error);
    return false;
  }
}

function showSaveProblem(error: unknown) {
  setMessage(byId("save-status"), "");
  if (error instanceof ApiError && error.status === 401) return failed(byId("save-error"), error);
  byId("save-error").textContent = "Not saved. " + (error instanceof Error ? error.message : String(error));
  byId("reload").hidden = !(error instanceof ApiError && error.code === "version_conflict");
  byId("save-problem").hidden = false;
}

async function patchRole(change: Record<string, unknown>, button: HTMLButtonElement) {
  if (saving || !current) return false;
  saving = true;
  button.disabled = true;
  clearSaveMessages();
  setMessage(byId("save-status"), "Saving…");
  try {
    const saved = await api<Role & { notice?: string; message?: string }>("PATCH", "roles/" + segment(current.id), { body: change, ifMatch: current.version });
    const { notice, message, ...role } = saved;
    showRole(role);
    setMessage(byId("save-status"), `Saved. The role is now at version ${role.version}.` + (notice && message ? " " + message : ""));
    return true;
  } catch (error) {
    showSaveProblem(error);
    return false;
  } finally {
    saving = false;
    button.disabled = false;
  }
}

const saveGroups = (toolGroups: string[]) =>
  patchRole({ toolGroups, toolLoading: chosenLoading(), questions: chosenQuestions(), pinnedTools: chosenPins().map((tool) => tool.name) }, byId<HTMLButtonElement>("save"));

function wireDetails() {
  const form = byId<HTMLFormElement>("details-form");
  byId("edit-details").addEventListener("click", () => {
    if (!current) return;
    inputById("edit-name").value = current.name;
    byId<HTMLTextAreaElement>("edit-prompt").value = current.rolePrompt;
    form.hidden = false;
    byId("edit-details").hidden = true;
    inputById("edit-name").focus();
  });
  const close = () => {
    form.hidden = true;
    byId("edit-details").hidden = false;
    byId("edit-details").focus();
  };
  byId("details-cancel").addEventListener("click", close);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = inputById("edit-name").value.trim();
    if (!name) {
      showSaveProblem(new Error("Give the role a name."));
      inputById("edit-name").focus();
      return;
    }
    const saved = await patchRole({ name, rolePrompt: byId<HTMLTextAreaElement>("edit-prompt").value }, byId<HTMLButtonElement>("details-save"));
    if (saved) close();
  });
}

function wireDelete() {
  const dialog = byId<HTMLDialogElement>("delete-role");
  byId("delete").addEventListener("click", () => {
    if (!current) return;
    byId("delete-role-name").textContent = current.name;
    setMessage(byId("delete-role-error"), "");
    dialog.returnValue = "";
    dialog.showModal();
    byId("delete-role-cancel").focus();
  });
  byId("delete-role-cancel").addEventListener("click", () => dialog.close("cancel"));
  byId("delete-role-confirm").addEventListener("click", async () => {
    if (!current) return;
    const button = byId<HTMLButtonElement>("delete-role-confirm");
    button.disabled = true;
    try {
      await api("DELETE", "roles/" + segment(current.id));
      dialog.close("deleted");
      location.assign(consoleHref("?deleted=" + encodeURIComponent(current.name)));
    } catch (error) {
      if (error instanceof ApiError && error.code === "role_in_use") {
        const count = Number(error.data?.activeAgents ?? 0);
        setMessage(byId("delete-role-error"), `Not deleted. ${error.message}` + (count ? ` Active agents in this role: ${count}.` : ""), "error");
      } else failed(byId("delete-role-error"), error);
      byId("delete-role-cancel").focus();
    } finally {
      button.disabled = false;
    }
  });
}

export function wireRolePage() {
  const dialog = byId<HTMLDialogElement>("clear-all");
  byId("groups-form").addEventListener("change", (event) => {
    const changed = event.target as HTMLInputElement;
    if (changed.name === "pinnedTools") {
      if (changed.checked) pinnedChoice.add(changed.value);
      else pinnedChoice.delete(changed.value);
    } else showPins();
    describeGroups();
  });
  byId("groups-form").addEventListener("submit", (event) => {
    event.preventDefault();
    if (!current || current.id === ROOT_ROLE_ID || saving) return;
    const ticked = tickedGroups();
    if (ticked.length > 0) return void saveGroups(ticked);
    dialog.returnValue = "";
    dialog.showModal();
    byId("clear-all-cancel").focus();
  });
  byId("clear-all-cancel").addEventListener("click", () => dialog.close("cancel"));
  byId("clear-all-confirm").addEventListener("click", () => dialog.close("confirm"));
  dialog.addEventListener("close", () => {
    byId("save").focus();
    if (dialog.returnValue === "confirm") void saveGroups([]);
  });
  byId("reload").addEventListener("click", async () => {
    clearSaveMessages();
    if (await loadRole()) {
      setMessage(byId("save-status"), `Reloaded: this is the role as it is now, at version ${current!.version}. Apply your change again if you still want it.`);
      byId("save").focus();
    }
  });
  wireDetails();
  wireDelete();
}
