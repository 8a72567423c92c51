// Served as-is at /console/app.js (no build step). It renders API data with textContent and
// DOM nodes only, never as HTML, and keeps the admin token in sessionStorage, never in a URL or cookie.
export const CLIENT_SCRIPT = String.raw`(() => {
  "use strict";
  const TOKEN_KEY = "toolgate.console.adminToken";
  const NOTICE_KEY = "toolgate.console.notice";
  const ROOT_ROLE_ID = "root";
  const body = document.body;
  const page = body.dataset.page;
  const root = body.dataset.root || "./";
  const apiBase = new URL(root, location.href);
  const byId = (id) => document.getElementById(id);
  const consoleHref = (path) => root + "console" + path;

  function element(tag, attributes, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "text") node.textContent = String(value);
      else if (key === "className") node.className = value;
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children || []) if (child !== null && child !== undefined) node.append(child);
    return node;
  }

  const spaced = (nodes) => nodes.flatMap((node, index) => (index === 0 ? [node] : [" ", node]));

  function setMessage(target, text, kind) {
    target.textContent = text;
    target.classList.toggle("message-error", kind === "error");
  }

  function storage(action) {
    try {
      return action(window.sessionStorage);
    } catch {
      return null;
    }
  }
  const storedToken = () => storage((store) => store.getItem(TOKEN_KEY));

  class ApiError extends Error {
    constructor(status, data) {
      super((data && typeof data.message === "string" && data.message) || "toolgate answered with status " + status + ".");
      this.status = status;
      this.code = data && data.error;
    }
  }

  async function api(method, path, options) {
    const { token = storedToken(), body: payload, ifMatch } = options || {};
    const headers = { Accept: "application/json", Authorization: "Bearer " + token };
    if (payload !== undefined) headers["Content-Type"] = "application/json";
    if (ifMatch !== undefined) headers["If-Match"] = '"' + ifMatch + '"';
    let response;
    try {
      response = await fetch(new URL(path, apiBase), {
        method,
        headers,
        body: payload === undefined ? undefined : JSON.stringify(payload),
        cache: "no-store",
        credentials: "omit",
      });
    } catch {
      throw new ApiError(0, { message: "Could not reach toolgate. Check that it is running, then try again." });
    }
    const text = await response.text();
    let data;
    try {
      data = text ? JSON.parse(text) : undefined;
    } catch {
      data = undefined;
    }
    if (!response.ok) throw new ApiError(response.status, data);
    return data;
  }

  function endSession(notice) {
    storage((store) => {
      store.removeItem(TOKEN_KEY);
      store.setItem(NOTICE_KEY, notice);
    });
    location.reload();
  }

  function failed(target, error) {
    if (error instanceof ApiError && error.status === 401) {
      endSession("Your sign-in is no longer accepted (" + error.message + ") Sign in again.");
      return;
    }
    setMessage(target, error.message, "error");
  }

  function showSignIn(notice) {
    byId("page").hidden = true;
    byId("nav").hidden = true;
    byId("sign-in").hidden = false;
    byId("sign-in-notice").textContent = notice || "";
    byId("admin-token").focus();
  }

  async function enter(moveFocus) {
    byId("sign-in").hidden = true;
    byId("nav").hidden = false;
    byId("page").hidden = false;
    if (moveFocus) byId("main").focus();
    await LOADERS[page]();
  }

  byId("sign-in-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = byId("admin-token");
    const problem = byId("sign-in-error");
    const button = event.currentTarget.querySelector("button[type=submit]");
    const token = input.value.trim();
    problem.textContent = "";
    byId("sign-in-notice").textContent = "";
    if (!token) {
      problem.textContent = "Enter the admin token.";
      input.focus();
      return;
    }
    button.disabled = true;
    try {
      await api("GET", "roles", { token });
    } catch (error) {
      problem.textContent = "Sign-in failed. " + error.message;
      input.select();
      input.focus();
      return;
    } finally {
      button.disabled = false;
    }
    storage((store) => store.setItem(TOKEN_KEY, token));
    input.value = "";
    await enter(true);
  });

  byId("sign-out").addEventListener("click", () => endSession("You are signed out."));

  // Roles list

  const usesAllGroups = (role) => role.id !== ROOT_ROLE_ID && (!role.toolGroups || role.toolGroups.length === 0);

  function groupsInBrief(role) {
    if (role.id === ROOT_ROLE_ID) return "org_management (read-only)";
    if (usesAllGroups(role)) return "All tool groups";
    return role.toolGroups.join(", ");
  }

  async function loadRoles() {
    const status = byId("load-status");
    setMessage(status, "Loading the roles…");
    try {
      const { roles } = await api("GET", "roles");
      roles.sort((a, b) => (a.id === ROOT_ROLE_ID ? -1 : b.id === ROOT_ROLE_ID ? 1 : a.name.localeCompare(b.name)));
      byId("role-list").replaceChildren(
        ...roles.map((role) =>
          element("li", {}, [
            element("a", { href: consoleHref("/roles/" + encodeURIComponent(role.id)), text: role.name }),
            element("span", { className: "role-groups", text: groupsInBrief(role) }),
            usesAllGroups(role)
              ? element("span", { className: "badge badge-warn", text: "every group, including ones registered later" })
              : null,
            role.toolLoading === "search" ? element("span", { className: "badge", text: "tools by search" }) : null,
          ]),
        ),
      );
      setMessage(status, roles.length ? "" : "There are no roles yet.");
    } catch (error) {
      failed(status, error);
    }
  }

  // One role

  const SOURCES = { builtin: "built-in", module: "module", api: "added through the API" };
  const sourceText = (group) => (group.module ? "module " + group.module : SOURCES[group.source] || group.source);
  const toolsLabel = (count) => element("span", { className: "tools-label", text: count === 1 ? "1 tool:" : count + " tools:" });

  let current = null;
  let groups = [];
  let tools = [];
  let pinnedChoice = new Set();
  let saving = false;

  const tickedGroups = () =>
    Array.from(document.querySelectorAll("#groups-form input[name=toolGroups]:checked"), (input) => input.value);
  const chosenLoading = () => {
    const chosen = document.querySelector("#groups-form input[name=toolLoading]:checked");
    return chosen ? chosen.value : "all";
  };
  /** Tools that can be pinned: those of the ticked groups (no box ticked: every group). */
  function pinnableTools() {
    const ticked = tickedGroups();
    return ticked.length === 0 ? tools : tools.filter((tool) => ticked.includes(tool.group));
  }
  const chosenPins = () => pinnableTools().filter((tool) => pinnedChoice.has(tool.name));
  const samePins = (names) => {
    const chosen = chosenPins().map((tool) => tool.name);
    return chosen.length === names.length && chosen.every((name) => names.includes(name));
  };

  function groupOption(group, checked, readOnly) {
    const key = "group-" + group.id;
    const input = element("input", {
      type: "checkbox",
      id: key,
      name: "toolGroups",
      value: group.id,
      "aria-describedby": key + "-description " + key + "-tools",
    });
    input.checked = checked;
    input.disabled = readOnly;
    return element("li", {}, [
      input,
      element("div", { className: "group-head" }, [
        element("label", { for: key, text: group.id }),
        element("span", { className: "badge", text: sourceText(group) }),
        readOnly && checked ? element("span", { className: "badge badge-fixed", text: "fixed for this role" }) : null,
        element("span", { className: "badge badge-tokens", id: key + "-tokens", text: tokensLabel(group.tokens) }),
      ]),
      element("p", { className: "group-desc", id: key + "-description", text: group.description }),
      element("p", { className: "tool-names", id: key + "-tools" }, spaced([toolsLabel(group.tools.length), ...group.tools.map((name) => element("code", { text: name }))])),
    ]);
  }

  function unavailableOption(groupId, readOnly) {
    const key = "missing-" + groupId;
    const input = element("input", { type: "checkbox", id: key, name: "toolGroups", value: groupId, "aria-describedby": key + "-description" });
    input.checked = true;
    input.disabled = readOnly;
    return element("li", {}, [
      input,
      element("div", { className: "group-head" }, [
        element("label", { for: key, text: groupId }),
        element("span", { className: "badge badge-warn", text: "unavailable" }),
      ]),
      element("p", { className: "group-desc", id: key + "-description", text: "Unavailable: this group is no longer registered, so it gives the role no tools." }),
    ]);
  }

  const sameGroups = (a, b) => a.length === b.length && a.every((id) => b.includes(id));

  const tokensLabel = (tokens) => Number(tokens || 0).toLocaleString("en") + " tokens";

  const unsaved = () =>
    current !== null &&
    (!sameGroups(tickedGroups(), current.toolGroups || []) || chosenLoading() !== (current.toolLoading || "all") || !samePins(current.pinnedTools || []));

  const sumTokens = (items) => items.reduce((sum, item) => sum + Number(item.tokens || 0), 0);

  /** What the form as it stands would cost: the ticked groups' tokens (no box: every group), or in search mode the pins and the two search tools. */
  function previewTokens() {
    if (chosenLoading() === "search") return Number(current.loadingTokens ? current.loadingTokens.searchTools : 0) + sumTokens(chosenPins());
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
        "Tool context: " + tokensLabel(current.toolTokens) + " for each of this role's agents" +
        (current.toolLoading === "search" ? " (loading all its tools would take " + tokensLabel(all) + ")." : ".");
      return;
    }
    line.textContent = "Tool context if saved: about " + tokensLabel(previewTokens()) + " for each of this role's agents (now " + tokensLabel(current.toolTokens) + ").";
  }

  function pinOption(tool, readOnly) {
    const key = "pin-" + tool.name;
    const input = element("input", { type: "checkbox", id: key, name: "pinnedTools", value: tool.name });
    input.checked = pinnedChoice.has(tool.name);
    input.disabled = readOnly;
    return element("li", {}, [
      input,
      element("label", { for: key }, [element("code", { text: tool.name })]),
      element("span", { className: "badge badge-tokens", text: tokensLabel(tool.tokens) }),
    ]);
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
      summary.textContent =
        "Unsaved change: " +
        (chosenLoading() === "search"
          ? "agents will keep " + chosenPins().length + " pinned " + (chosenPins().length === 1 ? "tool" : "tools") + " in context and find the rest with search_tools."
          : "agents will have every tool of the role in context.") +
        " Press Save to keep it.";
      return;
    }
    const effective = current.effectiveToolGroups || [];
    summary.textContent =
      saved.length === 0
        ? "This role names no tool groups, so it uses all tool groups (" + effective.length + " registered now), including ones registered later."
        : "This role's agents see only the tools of its ticked groups" +
          (effective.length ? ": " + effective.join(", ") + "." : ". None of them is registered now, so they see no tools.");
  }

  function formatTime(iso) {
    const date = new Date(iso);
    return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
  }

  function showRole(role) {
    current = role;
    const readOnly = role.id === ROOT_ROLE_ID;
    document.title = role.name + " · toolgate console";
    byId("role-name").textContent = role.name;
    byId("role-id").textContent = role.id;
    byId("role-version").textContent = String(role.version);
    byId("role-updated").replaceChildren(element("time", { datetime: role.updatedAt, text: formatTime(role.updatedAt) }));
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
    for (const input of document.querySelectorAll("#groups-form input[name=toolLoading]")) {
      input.checked = input.value === (role.toolLoading || "all");
      input.disabled = readOnly;
    }
    showPins();
    byId("root-note").hidden = !readOnly;
    byId("groups-form").classList.toggle("read-only", readOnly);
    byId("save-actions").hidden = readOnly;
    describeGroups();
  }

  function clearSaveMessages() {
    setMessage(byId("save-status"), "");
    byId("save-problem").hidden = true;
    byId("save-error").textContent = "";
    byId("reload").hidden = true;
  }

  async function loadRole() {
    const status = byId("load-status");
    setMessage(status, "Loading the role…");
    try {
      const [role, listed, catalog] = await Promise.all([
        api("GET", "roles/" + encodeURIComponent(body.dataset.roleId)),
        api("GET", "groups"),
        api("GET", "tools"),
      ]);
      groups = listed.groups;
      tools = catalog.tools;
      showRole(role);
      byId("role").hidden = false;
      setMessage(status, "");
      return true;
    } catch (error) {
      failed(status, error);
      return false;
    }
  }

  async function save(toolGroups) {
    if (saving || !current) return;
    saving = true;
    const button = byId("save");
    button.disabled = true;
    clearSaveMessages();
    setMessage(byId("save-status"), "Saving…");
    try {
      const change = { toolGroups, toolLoading: chosenLoading(), pinnedTools: chosenPins().map((tool) => tool.name) };
      const saved = await api("PATCH", "roles/" + encodeURIComponent(current.id), { body: change, ifMatch: current.version });
      const { notice, message, ...role } = saved;
      showRole(role);
      setMessage(byId("save-status"), "Saved. The role is now at version " + role.version + "." + (notice && message ? " " + message : ""));
    } catch (error) {
      setMessage(byId("save-status"), "");
      if (error instanceof ApiError && error.status === 401) return failed(byId("save-error"), error);
      byId("save-error").textContent = "Not saved. " + error.message;
      byId("reload").hidden = error.code !== "version_conflict";
      byId("save-problem").hidden = false;
    } finally {
      saving = false;
      button.disabled = false;
    }
  }

  function wireRolePage() {
    const dialog = byId("clear-all");
    byId("groups-form").addEventListener("change", (event) => {
      const changed = event.target;
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
      if (ticked.length > 0) return void save(ticked);
      dialog.returnValue = "";
      dialog.showModal();
      byId("clear-all-cancel").focus();
    });
    byId("clear-all-cancel").addEventListener("click", () => dialog.close("cancel"));
    byId("clear-all-confirm").addEventListener("click", () => dialog.close("confirm"));
    dialog.addEventListener("close", () => {
      byId("save").focus();
      if (dialog.returnValue === "confirm") void save([]);
    });
    byId("reload").addEventListener("click", async () => {
      clearSaveMessages();
      if (await loadRole()) {
        setMessage(byId("save-status"), "Reloaded: this is the role as it is now, at version " + current.version + ". Apply your change again if you still want it.");
        byId("save").focus();
      }
    });
  }

  // Groups

  function groupCard(group) {
    const facts = [
      element("dt", { text: "Source" }),
      element("dd", { text: (SOURCES[group.source] || group.source) + (group.reserved ? " (reserved id)" : "") }),
    ];
    if (group.module) facts.push(element("dt", { text: "Module" }), element("dd", {}, [element("code", { text: group.module })]));
    facts.push(
      element("dt", { text: "Tools" }),
      element("dd", {}, spaced([toolsLabel(group.toolCount), ...group.tools.map((name) => element("code", { text: name }))])),
    );
    return element("li", { className: "group-card" }, [
      element("h2", { text: group.id }),
      element("p", { className: "group-desc", text: group.description }),
      element("dl", {}, facts),
    ]);
  }

  async function loadGroups() {
    const status = byId("load-status");
    setMessage(status, "Loading the tool groups…");
    try {
      const { groups: listed } = await api("GET", "groups");
      byId("group-list").replaceChildren(...listed.map(groupCard));
      setMessage(status, listed.length ? "" : "No tool groups are registered.");
    } catch (error) {
      failed(status, error);
    }
  }

  const LOADERS = { roles: loadRoles, role: loadRole, groups: loadGroups };

  if (page === "role") wireRolePage();
  if (!LOADERS[page]) {
    byId("page").hidden = false;
    return;
  }
  const notice = storage((store) => {
    const text = store.getItem(NOTICE_KEY);
    store.removeItem(NOTICE_KEY);
    return text;
  });
  if (storedToken()) void enter(false);
  else showSignIn(notice);
})();
`;
