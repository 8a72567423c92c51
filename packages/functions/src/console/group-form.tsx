/** Registers a group, or replaces one (its Edit button fills the form): who it is for, what runs it and its tools. */
export function GroupForm() {
  return (
    <form id="group-form" class="panel create-form" novalidate aria-labelledby="group-form-title">
      <h2 id="group-form-title" tabindex={-1}>
        Register a group
      </h2>
      <p class="hint">A group with the id of one registered already replaces it. Built-in groups cannot be replaced.</p>
      <div class="field">
        <label for="group-id">Group id</label>
        <input id="group-id" name="id" type="text" maxlength={64} autocomplete="off" spellcheck={false} required />
      </div>
      <div class="field">
        <label for="group-description">Description</label>
        <textarea id="group-description" name="description" rows={2} maxlength={1024} required></textarea>
      </div>
      <fieldset>
        <legend>Who its tools are for</legend>
        <div class="choice">
          <input type="radio" id="group-scope-system" name="scopeKind" value="system" checked />
          <label for="group-scope-system">Everyone: agents whose role picks the group</label>
        </div>
        <div class="choice">
          <input type="radio" id="group-scope-department" name="scopeKind" value="department" />
          <label for="group-scope-department">One department: its agents get these tools in front of everyone's of the same name</label>
        </div>
        <div class="choice">
          <input type="radio" id="group-scope-agent" name="scopeKind" value="agent" />
          <label for="group-scope-agent">One agent: its own tools, which no other agent sees</label>
        </div>
        <div class="field-row">
          <div class="field">
            <label for="group-department">Department</label>
            <input id="group-department" name="department" type="text" maxlength={100} autocomplete="off" disabled />
          </div>
          <div class="field">
            <label for="group-agent">Agent id</label>
            <input id="group-agent" name="agentId" type="text" maxlength={100} autocomplete="off" spellcheck={false} disabled />
          </div>
        </div>
      </fieldset>
      <div class="field-row">
        <div class="field">
          <label for="group-executor-type">What runs its tools</label>
          <select id="group-executor-type" name="executorType">
            <option value="http">An HTTP endpoint</option>
            <option value="mcp">An MCP server</option>
            <option value="client">The agent's own runtime</option>
          </select>
        </div>
        <div class="field">
          <label for="group-executor-url">URL</label>
          <input id="group-executor-url" name="url" type="url" autocomplete="off" spellcheck={false} />
        </div>
      </div>
      <div class="field">
        <label for="group-tools">Tools (JSON)</label>
        <textarea id="group-tools" name="tools" rows={8} spellcheck={false} aria-describedby="group-tools-hint"></textarea>
        <p id="group-tools-hint" class="hint">
          An array of tool definitions: {'{ "type": "function", "function": { "name", "description", "parameters" } }'}. Leave it empty for
          an MCP server: its tools are imported from it.
        </p>
      </div>
      <p id="group-form-error" class="message message-error" role="alert"></p>
      <p id="group-form-status" class="message message-ok" role="status"></p>
      <div class="actions">
        <button type="submit" id="group-save" class="button-primary">
          Register group
        </button>
        <button type="reset" id="group-clear">
          Clear
        </button>
      </div>
    </form>
  );
}
