import type { Child } from "hono/jsx";
import { Back, DeleteDialog, OPERATOR_PAGES, OPERATOR_TITLES } from "./operator-pages";
import { GroupForm } from "./group-form";

export type ConsolePage =
  | { kind: "roles" }
  | { kind: "role"; roleId: string }
  | { kind: "groups" }
  | { kind: "tools" }
  | { kind: "tool"; toolName: string }
  | { kind: "policies" }
  | { kind: "modules" }
  | { kind: "agents" }
  | { kind: "agent"; agentId: string }
  | { kind: "departments" }
  | { kind: "approvals" }
  | { kind: "questions" }
  | { kind: "not-found" };

type NavItem = { path: string; label: string; current: Array<ConsolePage["kind"]> };
const NAV: NavItem[] = [
  { path: "/approvals", label: "Approvals", current: ["approvals"] },
  { path: "/questions", label: "Questions", current: ["questions"] },
  { path: "/agents", label: "Agents", current: ["agents", "agent"] },
  { path: "/departments", label: "Departments", current: ["departments"] },
  { path: "", label: "Roles", current: ["roles", "role"] },
  { path: "/tools", label: "Tools", current: ["tools", "tool"] },
  { path: "/policies", label: "Policies", current: ["policies"] },
  { path: "/groups", label: "Groups", current: ["groups"] },
  { path: "/modules", label: "Modules", current: ["modules"] },
];

/** The console's pages hold no data: the client script fetches it from the API with the admin token the person signs in with. */
export function ConsoleDocument({ page, root }: { page: ConsolePage; root: string }) {
  const href = (path: string) => `${root}console${path}`;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>{`${TITLES[page.kind]} · toolgate console`}</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href={href("/app.css")} />
        <script src={href("/app.js")} defer></script>
      </head>
      <body
        data-page={page.kind}
        data-root={root}
        data-role-id={page.kind === "role" ? page.roleId : undefined}
        data-tool-name={page.kind === "tool" ? page.toolName : undefined}
        data-agent-id={page.kind === "agent" ? page.agentId : undefined}
      >
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        <header class="top-bar">
          <div class="top-bar-inner">
            <a class="brand" href={href("")}>
              toolgate <span class="brand-sub">console</span>
            </a>
            <nav id="nav" aria-label="Console" hidden>
              <ul>
                {NAV.map((item) => (
                  <li>
                    <a
                      href={href(item.path)}
                      aria-current={item.current[0] === page.kind ? "page" : item.current.includes(page.kind) ? "true" : undefined}
                    >
                      {item.label}
                      {item.path === "/approvals" ? <span id="approval-count" class="count" hidden></span> : null}
                      {item.path === "/questions" ? <span id="question-count" class="count" hidden></span> : null}
                    </a>
                  </li>
                ))}
                <li>
                  <button type="button" id="sign-out" class="button-quiet">
                    Sign out
                  </button>
                </li>
              </ul>
            </nav>
          </div>
        </header>
        <main id="main" tabindex={-1}>
          <noscript>
            <p class="message message-error">The console needs JavaScript: it loads everything it shows from the API in your browser.</p>
          </noscript>
          <SignIn />
          <div id="page" hidden>
            {PAGES[page.kind](href)}
          </div>
        </main>
      </body>
    </html>
  );
}

const TITLES: Record<ConsolePage["kind"], string> = {
  roles: "Roles",
  role: "Role",
  groups: "Tool groups",
  ...OPERATOR_TITLES,
  "not-found": "Page not found",
};

function SignIn() {
  return (
    <section id="sign-in" class="panel narrow" aria-labelledby="sign-in-title" hidden>
      <h1 id="sign-in-title">Sign in</h1>
      <p>
        Sign in with toolgate's admin token. It stays in this browser tab only and is sent to the API as a bearer token; closing the tab
        or choosing "Sign out" forgets it.
      </p>
      <p id="sign-in-notice" class="message message-info" role="status"></p>
      <form id="sign-in-form" method="post" novalidate>
        <div class="field">
          <label for="admin-token">Admin token</label>
          <input id="admin-token" name="admin-token" type="password" autocomplete="off" aria-describedby="sign-in-error" />
        </div>
        <p id="sign-in-error" class="message message-error" role="alert"></p>
        <button type="submit" class="button-primary">
          Sign in
        </button>
      </form>
    </section>
  );
}

const PAGES: Record<ConsolePage["kind"], (href: (path: string) => string) => Child> = {
  roles: () => (
    <section aria-labelledby="roles-title">
      <h1 id="roles-title">Roles</h1>
      <p class="lead">Open a role to see the tool groups its agents may use and to change them.</p>
      <p id="load-status" class="message" role="status"></p>
      <ul id="role-list" class="role-list"></ul>
      <form id="create-role-form" class="panel create-form" novalidate aria-labelledby="create-role-title">
        <h2 id="create-role-title">Create a role</h2>
        <div class="field">
          <label for="new-role-name">Name</label>
          <input id="new-role-name" name="name" type="text" maxlength={100} autocomplete="off" required />
        </div>
        <div class="field">
          <label for="new-role-prompt">Prompt</label>
          <textarea id="new-role-prompt" name="rolePrompt" rows={4} maxlength={20000}></textarea>
        </div>
        <fieldset id="new-role-groups" aria-describedby="new-role-groups-hint">
          <legend>Tool groups its agents may use</legend>
          <p id="new-role-groups-hint" class="hint">
            Tick the groups the role's agents need: they see only those groups' tools. Each group shows what its tools cost in every
            agent's context.
          </p>
          <ul id="new-role-group-options" class="group-options"></ul>
          <div class="choice every-group">
            <input type="checkbox" id="new-role-every-group" name="everyGroup" aria-describedby="every-group-warning" />
            <label for="new-role-every-group">Every tool group, including ones registered later</label>
          </div>
          <p id="every-group-warning" class="message message-warn" hidden>
            Every group includes org_management, which lets this role's agents create roles and spawn agents, and every group
            registered from now on, which nobody will have chosen for this role. Choose it only for a role that organises other agents.
          </p>
          <p id="new-role-tokens" class="tokens" aria-live="polite"></p>
        </fieldset>
        <p id="create-role-error" class="message message-error" role="alert"></p>
        <button type="submit" class="button-primary">
          Create role
        </button>
      </form>
    </section>
  ),
  role: (href) => (
    <>
      <Back href={href("")} text="All roles" />
      <p id="load-status" class="message" role="status"></p>
      <article id="role" aria-labelledby="role-name" hidden>
        <h1 id="role-name"></h1>
        <dl class="meta">
          <div>
            <dt>Id</dt>
            <dd>
              <code id="role-id"></code>
            </dd>
          </div>
          <div>
            <dt>Version</dt>
            <dd id="role-version"></dd>
          </div>
          <div>
            <dt>Last changed</dt>
            <dd id="role-updated"></dd>
          </div>
          <div>
            <dt>Created by</dt>
            <dd id="role-created-by"></dd>
          </div>
        </dl>
        <div id="role-actions" class="actions">
          <button type="button" id="edit-details">
            Edit name and prompt
          </button>
          <button type="button" id="delete" class="button-danger">
            Delete role
          </button>
        </div>
        <form id="details-form" class="panel-inset" novalidate hidden aria-label="Name and prompt">
          <div class="field">
            <label for="edit-name">Name</label>
            <input id="edit-name" name="name" type="text" maxlength={100} autocomplete="off" required />
          </div>
          <div class="field">
            <label for="edit-prompt">Prompt</label>
            <textarea id="edit-prompt" name="rolePrompt" rows={6} maxlength={20000}></textarea>
          </div>
          <div class="actions">
            <button type="submit" id="details-save" class="button-primary">
              Save name and prompt
            </button>
            <button type="button" id="details-cancel">
              Cancel
            </button>
          </div>
        </form>
        <h2>Prompt</h2>
        <p id="role-prompt" class="prompt"></p>
        <h2 id="groups-title">Tool groups</h2>
        <p id="root-note" class="message message-info" hidden>
          The root role is read-only: its tool groups are fixed to org_management, because root only organises work (finds and creates
          roles, spawns agents) and does no task itself.
        </p>
        <p id="groups-summary" class="message message-info" aria-live="polite"></p>
        <p id="groups-tokens" class="tokens" aria-live="polite"></p>
        <form id="groups-form" novalidate>
          <fieldset>
            <legend>Groups this role's agents may use</legend>
            <p class="hint">
              Tick the groups the role's agents need: they see only those groups' tools. Leaving every box unticked means the role uses all
              tool groups, including ones registered later.
            </p>
            <ul id="group-options" class="group-options"></ul>
          </fieldset>
          <fieldset id="unavailable" hidden>
            <legend>No longer registered</legend>
            <p class="hint">
              The role still names these groups, but nothing provides them now, so its agents get no tools from them. Untick them to
              remove them from the role: saving with one ticked is refused.
            </p>
            <ul id="unavailable-options" class="group-options"></ul>
          </fieldset>
          <fieldset id="loading">
            <legend>How agents load these tools</legend>
            <p class="hint">
              Loading all puts every tool in each agent's context. Search keeps only the pinned tools there, with search_tools and
              call_tool, through which agents find and call the others: what they may call is the same either way.
            </p>
            <div class="choice">
              <input type="radio" id="loading-all" name="toolLoading" value="all" />
              <label for="loading-all">All tools in the context</label>
            </div>
            <div class="choice">
              <input type="radio" id="loading-search" name="toolLoading" value="search" />
              <label for="loading-search">Search: pinned tools, search_tools and call_tool</label>
            </div>
          </fieldset>
          <fieldset id="questions">
            <legend>Who answers its agents' questions</legend>
            <p class="hint">
              An agent asks a person with ask_user. Its own user answers when its MCP client can ask them; otherwise, or always with the
              second choice, the question waits on the Questions page for an operator.
            </p>
            <div class="choice">
              <input type="radio" id="questions-user" name="questions" value="user" />
              <label for="questions-user">The agent's own user, when its client can ask them</label>
            </div>
            <div class="choice">
              <input type="radio" id="questions-operator" name="questions" value="operator" />
              <label for="questions-operator">Always an operator</label>
            </div>
          </fieldset>
          <fieldset id="pinned" hidden>
            <legend>Pinned tools</legend>
            <p class="hint">Pinned tools stay in every agent's context; pin the few the role uses on almost every task.</p>
            <ul id="pinned-options" class="pin-options"></ul>
          </fieldset>
          <div class="save-bar" id="save-actions">
            <p id="save-status" class="message message-ok" role="status"></p>
            <div id="save-problem" class="message message-error" role="alert" hidden>
              <p id="save-error"></p>
              <button type="button" id="reload">
                Reload
              </button>
            </div>
            <button type="submit" id="save" class="button-primary">
              Save
            </button>
          </div>
        </form>
        <dialog id="clear-all" role="dialog" aria-labelledby="clear-all-title" aria-describedby="clear-all-text">
          <h2 id="clear-all-title">Use all tool groups?</h2>
          <p id="clear-all-text">
            No group is ticked. If you save this, the role names no tool groups and all tool groups will then apply: its agents see every
            group registered now, org_management included (which lets them create roles and spawn agents), and every group registered
            later.
          </p>
          <div class="actions">
            <button type="button" id="clear-all-confirm" class="button-primary">
              Use all groups
            </button>
            <button type="button" id="clear-all-cancel">
              Cancel
            </button>
          </div>
        </dialog>
        <DeleteDialog what="role" confirm="Delete role">
          The role <strong id="delete-role-name"></strong> is removed for good. A role that active agents are bound to cannot be deleted:
          terminate them first.
        </DeleteDialog>
      </article>
    </>
  ),
  groups: () => (
    <section aria-labelledby="groups-page-title">
      <h1 id="groups-page-title">Tool groups</h1>
      <p class="lead">
        Every tool group registered now: who it is for, where it comes from and the tools it holds. A department's or an agent's group is in
        front of everyone's tools of the same name for the agents it reaches.
      </p>
      <form class="toolbar filters" aria-label="Filter the groups" novalidate>
        <div class="field">
          <label for="group-scope-filter">For</label>
          <select id="group-scope-filter">
            <option value="">Everyone, departments and agents</option>
          </select>
        </div>
        <p id="group-count" class="hint" aria-live="polite"></p>
      </form>
      <p id="load-status" class="message" role="status"></p>
      <ul id="group-list" class="group-list"></ul>
      <GroupForm />
    </section>
  ),
  ...OPERATOR_PAGES,
  "not-found": (href) => (
    <section aria-labelledby="not-found-title">
      <h1 id="not-found-title">Page not found</h1>
      <p>
        The console has no page here. <a href={href("")}>Go to the roles</a>.
      </p>
    </section>
  ),
};
