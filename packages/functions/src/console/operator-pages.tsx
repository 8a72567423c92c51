import type { Child } from "hono/jsx";

type Kind = "tools" | "tool" | "policies" | "modules" | "agents" | "agent" | "departments" | "approvals" | "questions";

export const OPERATOR_TITLES: Record<Kind, string> = {
  tools: "Tools and policies",
  tool: "Tool",
  policies: "Policies",
  modules: "Modules",
  agents: "Agents",
  agent: "Agent",
  departments: "Departments",
  approvals: "Approvals",
  questions: "Questions",
};

/** The link back to the list a page belongs to. */
export const Back = ({ href, text }: { href: string; text: string }) => (
  <p class="back">
    <a href={href}>← {text}</a>
  </p>
);

/** A list shown as a table (a stack of blocks on a phone), its rows filled in by the client script. */
const DataTable = ({ id, caption, columns, hidden }: { id: string; caption: string; columns: string[]; hidden?: boolean }) => (
  <div class="table-wrap">
    <table id={`${id}-table`} hidden={hidden}>
      <caption class="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          {columns.map((column) => (
            <th scope="col">{column}</th>
          ))}
        </tr>
      </thead>
      <tbody id={`${id}-rows`}></tbody>
    </table>
  </div>
);

/** A choice among radio buttons, one per value: `[value, label]`. */
const Choices = ({ name, choices }: { name: string; choices: Array<[string, string]> }) => (
  <>
    {choices.map(([value, label]) => (
      <div class="choice">
        <input type="radio" id={`${name}-${value}`} name={name} value={value} />
        <label for={`${name}-${value}`}>{label}</label>
      </div>
    ))}
  </>
);

/** The editor of one policy: where it applies, its mode, and a one-line rule or Cedar text, checked as it is typed. */
const PolicyForm = () => (
  <form id="policy-form" class="panel create-form" novalidate aria-labelledby="policy-form-title" hidden>
    <h2 id="policy-form-title" tabindex={-1}>
      New policy
    </h2>
    <p id="policy-form-version" class="hint"></p>
    <div class="field">
      <label for="policy-id">Policy id</label>
      <input id="policy-id" name="id" type="text" maxlength={64} autocomplete="off" spellcheck={false} aria-describedby="policy-id-hint" required />
      <p id="policy-id-hint" class="hint">
        1 to 64 letters, digits, "_", "." or "-". It cannot be changed once saved.
      </p>
    </div>
    <div class="field-row">
      <div class="field">
        <label for="policy-scope-kind">Applies to</label>
        <select id="policy-scope-kind" name="scopeKind">
          <option value="system">Every agent (system)</option>
          <option value="department">The agents of a department</option>
          <option value="role">The agents of a role</option>
          <option value="agent">One agent</option>
        </select>
      </div>
      <div class="field" id="policy-scope-name-field" hidden>
        <label for="policy-scope-name" id="policy-scope-name-label">
          Department
        </label>
        <input id="policy-scope-name" name="scopeName" type="text" maxlength={190} autocomplete="off" list="policy-scope-options" />
        <datalist id="policy-scope-options"></datalist>
      </div>
    </div>
    <fieldset>
      <legend>Mode</legend>
      <Choices
        name="policy-mode"
        choices={[
          ["enforce", "Enforce: the policy decides the calls it matches"],
          ["log_only", "Log only: calls record what it would have decided"],
        ]}
      />
    </fieldset>
    <div class="field">
      <label for="policy-description">Description (optional)</label>
      <textarea id="policy-description" name="description" rows={2} maxlength={1000}></textarea>
    </div>
    <fieldset>
      <legend>Written as</legend>
      <Choices
        name="policy-written"
        choices={[
          ["rule", "A one-line rule"],
          ["cedar", "Cedar"],
        ]}
      />
    </fieldset>
    <fieldset id="policy-rule-fields">
      <legend>Rule</legend>
      <p class="hint">
        The glob is matched against each simple command of a command line, each path (resolved against the workspace root), or the argument you
        name; "*" matches any text.
      </p>
      <div class="field-row">
        <div class="field">
          <label for="policy-tool">Tool</label>
          <input id="policy-tool" name="tool" type="text" maxlength={64} autocomplete="off" spellcheck={false} list="policy-tool-options" />
          <datalist id="policy-tool-options"></datalist>
        </div>
        <div class="field">
          <label for="policy-argument">Argument (optional)</label>
          <input id="policy-argument" name="argument" type="text" maxlength={128} autocomplete="off" spellcheck={false} />
        </div>
      </div>
      <div class="field">
        <label for="policy-match">Match (glob)</label>
        <input id="policy-match" name="match" type="text" maxlength={4096} autocomplete="off" spellcheck={false} />
      </div>
      <div class="field-row">
        <div class="field">
          <label for="policy-effect">Effect</label>
          <select id="policy-effect" name="effect">
            <option value="deny">Deny: refuse the call</option>
            <option value="ask">Ask: an operator approves the call</option>
            <option value="allow">Allow</option>
          </select>
        </div>
        <div class="field">
          <label for="policy-reason">Reason (optional)</label>
          <input id="policy-reason" name="reason" type="text" maxlength={1000} autocomplete="off" />
        </div>
      </div>
      <div class="choice">
        <input type="checkbox" id="policy-recoverable" name="recoverable" />
        <label for="policy-recoverable">Recoverable: the agent can succeed by changing what it sends (the reason says how)</label>
      </div>
    </fieldset>
    <div class="field" id="policy-cedar-field" hidden>
      <label for="policy-cedar">Cedar policy</label>
      <textarea id="policy-cedar" name="cedar" rows={10} spellcheck={false} class="code-input" aria-describedby="policy-check"></textarea>
    </div>
    <div id="policy-check" aria-live="polite"></div>
    <details id="policy-compiled" hidden>
      <summary>The Cedar this rule stands for</summary>
      <pre id="policy-compiled-text" class="json"></pre>
    </details>
    <section id="policy-simulation" class="panel-inset" aria-labelledby="policy-simulation-title" hidden>
      <h3 id="policy-simulation-title">What the draft would change</h3>
      <div id="policy-simulation-result" role="status"></div>
    </section>
    <div class="save-bar">
      <p id="policy-save-status" class="message message-ok" role="status"></p>
      <div id="policy-save-problem" class="message message-error" role="alert" hidden>
        <p id="policy-save-error"></p>
        <button type="button" id="policy-reload" hidden>
          Reload
        </button>
      </div>
      <div class="actions">
        <button type="submit" id="policy-save" class="button-primary">
          Save policy
        </button>
        <button type="button" id="policy-check-now">
          Check
        </button>
        <button type="button" id="policy-simulate">
          Simulate
        </button>
        <button type="button" id="policy-delete" class="button-danger" hidden>
          Delete policy
        </button>
        <button type="button" id="policy-cancel">
          Close
        </button>
      </div>
    </div>
  </form>
);

const TokenPanel = () => <section id="token-panel" class="panel token-panel" aria-labelledby="token-title" hidden></section>;

/** The skeletons of the operator's pages: headings, forms and empty lists that the client script fills from the API. */
export const OPERATOR_PAGES: Record<Kind, (href: (path: string) => string) => Child> = {
  approvals: () => (
    <section aria-labelledby="approvals-title">
      <h1 id="approvals-title">Approvals</h1>
      <p class="lead">
        Calls to dangerous tools, or tools that need confirmation, wait here for an operator. Approve runs the tool once; Deny refuses the
        call. A call left past its deadline expires; the calls of an agent that is terminated are cancelled and leave the queue.
      </p>
      <div class="toolbar">
        <p id="queue-updated" class="hint" aria-live="off"></p>
        <button type="button" id="refresh-approvals">
          Refresh now
        </button>
      </div>
      <p id="load-status" class="message" role="status"></p>
      <ul id="approval-list" class="card-list" aria-label="Calls waiting for approval"></ul>
      <section id="decided" aria-labelledby="decided-title" hidden>
        <h2 id="decided-title">Just decided</h2>
        <p class="hint">Calls answered on this page, newest first; they are no longer in the queue.</p>
        <ul id="decided-list" class="card-list" aria-labelledby="decided-title"></ul>
      </section>
    </section>
  ),
  questions: () => (
    <section aria-labelledby="questions-title">
      <h1 id="questions-title">Questions</h1>
      <p class="lead">
        Agents ask a person with ask_user, and modules ask with a form during a call. A question the agent's user cannot answer waits
        here: choose an option, write an answer or fill in the form, or decline it. The agent (or the module) receives the answer; a
        question left past its deadline expires.
      </p>
      <div class="toolbar">
        <p id="questions-updated" class="hint" aria-live="off"></p>
        <button type="button" id="refresh-questions">
          Refresh now
        </button>
      </div>
      <p id="load-status" class="message" role="status"></p>
      <ul id="question-list" class="card-list" aria-label="Questions waiting for an answer"></ul>
      <section id="answered" aria-labelledby="answered-title" hidden>
        <h2 id="answered-title">Just answered</h2>
        <ul id="answered-list" class="card-list" aria-labelledby="answered-title"></ul>
      </section>
      <section id="answer-tokens" aria-labelledby="answer-tokens-title">
        <h2 id="answer-tokens-title">Answering tokens</h2>
        <p class="hint">
          A chat bot that puts these questions to people answers them with a token of its own, not the admin token: it reads this queue and
          answers questions, nothing else. Answers it gives name it. Revoking a token stops it at once.
        </p>
        <form id="answer-token-form" class="toolbar" aria-label="Make an answering token" novalidate>
          <div class="field">
            <label for="answer-token-name">Name</label>
            <input id="answer-token-name" name="name" type="text" maxlength={100} required placeholder="chat-bot" />
          </div>
          <button type="submit" class="button-primary">
            Make token
          </button>
        </form>
        <p id="answer-token-status" class="message" role="status"></p>
        <TokenPanel />
        <p id="answer-token-none" class="hint" hidden>
          No answering token: only the admin token answers questions.
        </p>
        <DataTable id="answer-token" caption="Answering tokens" columns={["Name", "Id", "Made", "Revoke"]} hidden />
      </section>
    </section>
  ),
  agents: () => (
    <section aria-labelledby="agents-title">
      <h1 id="agents-title">Agents</h1>
      <p class="lead">Every agent, newest first. Open one to see its calls, terminate it or give it a new token.</p>
      <form id="agent-filters" class="toolbar filters" aria-label="Filter the agents">
        <div class="field">
          <label for="agent-role-filter">Role</label>
          <select id="agent-role-filter" name="roleId">
            <option value="">Any role</option>
          </select>
        </div>
        <div class="field">
          <label for="agent-status-filter">Status</label>
          <select id="agent-status-filter" name="status">
            <option value="">Any status</option>
            <option value="active">Active</option>
            <option value="terminated">Terminated</option>
          </select>
        </div>
      </form>
      <p id="load-status" class="message" role="status"></p>
      <DataTable id="agent" caption="Agents" columns={["Name", "Id", "Role", "Status", "Department", "Level", "Created"]} hidden />
      <button type="button" id="more-agents" hidden>
        Load more agents
      </button>
      <TokenPanel />
      <form id="create-agent-form" class="panel create-form" novalidate aria-labelledby="create-agent-title">
        <h2 id="create-agent-title">Create an agent</h2>
        <div class="field">
          <label for="new-agent-role">Role</label>
          <select id="new-agent-role" name="roleId" required></select>
        </div>
        <div class="field">
          <label for="new-agent-name">Name (optional)</label>
          <input id="new-agent-name" name="name" type="text" maxlength={100} autocomplete="off" />
        </div>
        <div class="field-row">
          <div class="field">
            <label for="new-agent-department">Department (optional)</label>
            <input id="new-agent-department" name="department" type="text" maxlength={100} autocomplete="off" />
          </div>
          <div class="field">
            <label for="new-agent-level">Level (optional)</label>
            <input id="new-agent-level" name="level" type="number" min={0} max={1000} step={1} inputmode="numeric" />
          </div>
        </div>
        <p id="create-agent-error" class="message message-error" role="alert"></p>
        <button type="submit" class="button-primary">
          Create agent
        </button>
      </form>
    </section>
  ),
  agent: (href) => (
    <>
      <Back href={href("/agents")} text="All agents" />
      <p id="load-status" class="message" role="status"></p>
      <article id="agent" class="panel" aria-labelledby="agent-name" hidden>
        <h1 id="agent-name" tabindex={-1}></h1>
        <dl id="agent-facts" class="facts"></dl>
        <div id="agent-actions" class="actions">
          <button type="button" id="new-token">
            Issue a new token
          </button>
          <button type="button" id="terminate" class="button-danger">
            Terminate
          </button>
        </div>
        <p id="agent-result" class="message" role="status"></p>
        <TokenPanel />
        <h2 id="tools-title">Tools</h2>
        <p class="hint">
          What the agent may call now, and the layer each tool comes from: everyone's groups, its department's or its own. Where a narrower
          layer has a tool of the same name, that one is in front: the agent sees and calls only it.
        </p>
        <p id="tools-status" class="message" role="status"></p>
        <DataTable id="agent-tool" caption="The agent's tools" columns={["Tool", "Layer", "Group", "In front of"]} hidden />
        <h2 id="calls-title">Calls</h2>
        <form id="call-filters" class="toolbar filters" aria-label="Filter the calls">
          <div class="field">
            <label for="call-status-filter">Status</label>
            <select id="call-status-filter" name="status"></select>
          </div>
          <div class="field">
            <label for="call-tool-filter">Tool</label>
            <input id="call-tool-filter" name="tool" type="text" maxlength={200} autocomplete="off" />
          </div>
          <button type="submit">Filter</button>
        </form>
        <p id="calls-status" class="message" role="status"></p>
        <ul id="call-list" class="call-list" aria-labelledby="calls-title"></ul>
        <button type="button" id="more-calls" hidden>
          Load older calls
        </button>
        <dialog id="agent-confirm" aria-labelledby="agent-confirm-title" aria-describedby="agent-confirm-text">
          <h2 id="agent-confirm-title"></h2>
          <p id="agent-confirm-text"></p>
          <div class="actions">
            <button type="button" id="agent-confirm-ok" class="button-danger"></button>
            <button type="button" id="agent-confirm-cancel">
              Cancel
            </button>
          </div>
        </dialog>
      </article>
    </>
  ),
  departments: (href) => (
    <section aria-labelledby="departments-title">
      <h1 id="departments-title">Departments</h1>
      <p class="lead">
        A department is the name its agents carry. Groups registered for a department are in front of everyone's tools of the same name for
        its agents: <a href={href("/groups")}>register one on the groups page</a>.
      </p>
      <p id="load-status" class="message" role="status"></p>
      <DataTable id="department" caption="Departments" columns={["Department", "Agents", "Its groups"]} hidden />
    </section>
  ),
  tools: () => (
    <section aria-labelledby="tools-title">
      <h1 id="tools-title">Tools and policies</h1>
      <p class="lead">Every registered tool: its group, what runs it and the policy the guard applies. Open a tool to change its policy.</p>
      <form class="toolbar filters" aria-label="Filter the tools" novalidate>
        <div class="field">
          <label for="tool-filter">Name or description</label>
          <input id="tool-filter" type="search" autocomplete="off" />
        </div>
        <div class="field">
          <label for="tool-group-filter">Group</label>
          <select id="tool-group-filter">
            <option value="">All groups</option>
          </select>
        </div>
        <p id="tool-count" class="hint" aria-live="polite"></p>
      </form>
      <p id="load-status" class="message" role="status"></p>
      <DataTable id="tool" caption="Tools" columns={["Tool", "Group", "Executor", "Policy", "Context"]} />
    </section>
  ),
  tool: (href) => (
    <>
      <Back href={href("/tools")} text="All tools" />
      <p id="load-status" class="message" role="status"></p>
      <article id="tool" class="panel" aria-labelledby="tool-name" hidden>
        <h1 id="tool-name"></h1>
        <p id="tool-description" class="lead"></p>
        <dl id="tool-facts" class="facts"></dl>
        <div class="actions">
          <button type="button" id="toggle-tool"></button>
        </div>
        <p id="policy-status" class="message" role="status"></p>
        <form id="policy-form" novalidate aria-labelledby="policy-title">
          <h2 id="policy-title">Change the policy</h2>
          <p class="hint">
            Your change is kept as an override of the tool's own policy. Clearing a field gives it back the tool's own value.
          </p>
          <fieldset>
            <legend>Approval</legend>
            <div class="choice">
              <input id="policy-dangerous" type="checkbox" name="dangerous" />
              <label for="policy-dangerous">Dangerous: every call waits for an operator's approval</label>
            </div>
            <div class="choice">
              <input id="policy-confirmation" type="checkbox" name="requireConfirmation" />
              <label for="policy-confirmation">Requires confirmation: every call waits for an operator's approval</label>
            </div>
          </fieldset>
          <fieldset>
            <legend>Limits</legend>
            <div class="field-row">
              <div class="field">
                <label for="policy-per-minute">Calls a minute, per agent</label>
                <input id="policy-per-minute" type="number" min={1} step={1} inputmode="numeric" />
              </div>
              <div class="field">
                <label for="policy-per-hour">Calls an hour, per agent</label>
                <input id="policy-per-hour" type="number" min={1} step={1} inputmode="numeric" />
              </div>
              <div class="field">
                <label for="policy-timeout">Timeout (ms)</label>
                <input id="policy-timeout" type="number" min={1} max={900000} step={1} inputmode="numeric" />
              </div>
            </div>
          </fieldset>
          <fieldset>
            <legend>Who may call it</legend>
            <div class="field">
              <label for="policy-roles">Allowed roles (names, separated by commas; empty: any)</label>
              <input id="policy-roles" type="text" autocomplete="off" />
            </div>
            <div class="field">
              <label for="policy-departments">Allowed departments (separated by commas; empty: any)</label>
              <input id="policy-departments" type="text" autocomplete="off" />
            </div>
            <div class="field">
              <label for="policy-min-level">Minimum level (empty: none)</label>
              <input id="policy-min-level" type="number" min={0} step={1} inputmode="numeric" />
            </div>
          </fieldset>
          <button type="submit" id="policy-save" class="button-primary">
            Save policy
          </button>
        </form>
      </article>
    </>
  ),
  policies: () => (
    <section aria-labelledby="policies-title">
      <h1 id="policies-title">Policies</h1>
      <p class="lead">
        Cedar policies decide a call by its arguments, in layers: the system's apply to every agent, a department's, a role's or an agent's to
        theirs. Of the policies a call matches, a deny wins over an ask and an ask over an allow. A log-only policy decides nothing: calls record
        what it would have decided.
      </p>
      <div class="toolbar">
        <button type="button" id="new-policy" class="button-primary">
          New policy
        </button>
        <p id="policy-revision" class="hint"></p>
      </div>
      <p id="load-status" class="message" role="status"></p>
      <p id="policy-list-status" class="message" role="status"></p>
      <PolicyForm />
      <div id="policy-layers"></div>
      <DeleteDialog
        what="policy"
        confirm="Delete policy"
        after={<div id="delete-policy-simulation" role="status"></div>}
      >
        The policy <strong id="delete-policy-name"></strong> is removed for good; a policy shipped with toolgate is not written again. Below:
        how the newest recorded calls would be decided without it.
      </DeleteDialog>
    </section>
  ),
  modules: () => (
    <section aria-labelledby="modules-title">
      <h1 id="modules-title">Modules</h1>
      <p class="lead">Modules announce themselves on the event bus. Each one's last known state: loaded, unloaded, or rejected and why.</p>
      <p id="load-status" class="message" role="status"></p>
      <DataTable id="module" caption="Modules" columns={["Module", "Status", "Version", "Group", "Reason", "Updated"]} hidden />
    </section>
  ),
};

/** A dialog that asks before deleting something for good; its parts' ids start with `delete-<what>` (the page's script binds them). */
export function DeleteDialog({ what, confirm, after, children }: { what: string; confirm: string; after?: Child; children: Child }) {
  const id = `delete-${what}`;
  return (
    <dialog id={id} aria-labelledby={`${id}-title`} aria-describedby={`${id}-text`}>
      <h2 id={`${id}-title`}>Delete this {what}?</h2>
      <p id={`${id}-text`}>{children}</p>
      {after}
      <p id={`${id}-error`} class="message message-error" role="alert"></p>
      <div class="actions">
        <button type="button" id={`${id}-confirm`} class="button-danger">
          {confirm}
        </button>
        <button type="button" id={`${id}-cancel`}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
