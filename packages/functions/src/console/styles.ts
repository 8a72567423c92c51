export const STYLES = `
:root {
  color-scheme: light;
  --ink: #1b1f24;
  --muted: #4b5563;
  --line: #d5dae1;
  --paper: #ffffff;
  --wash: #f4f6f8;
  --accent: #1d4ed8;
  --accent-ink: #ffffff;
  --focus: #f59e0b;
  --ok: #166534;
  --ok-wash: #ecfdf3;
  --error: #b42318;
  --error-wash: #fef3f2;
  --info-wash: #eff4ff;
  --warn: #92400e;
  --warn-wash: #fffbeb;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
  font-size: 16px;
  line-height: 1.5;
  color: var(--ink);
  background: var(--wash);
}
* { box-sizing: border-box; }
body { margin: 0; }
[hidden] { display: none !important; }
a { color: var(--accent); }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.9em; overflow-wrap: anywhere; }
h1 { font-size: 1.75rem; line-height: 1.25; margin: 0 0 0.5rem; overflow-wrap: anywhere; }
h2 { font-size: 1.2rem; margin: 1.75rem 0 0.5rem; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
main:focus { outline: none; }

.skip-link { position: absolute; left: 0.5rem; top: -3rem; background: var(--paper); padding: 0.5rem 0.75rem; z-index: 10; }
.skip-link:focus { top: 0.5rem; }

.top-bar { background: #111827; color: #f9fafb; }
.top-bar-inner { max-width: 72rem; margin: 0 auto; padding: 0.5rem 1.25rem; display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 0.5rem 1.5rem; min-height: 3.5rem; }
.brand { color: #f9fafb; font-weight: 700; font-size: 1.1rem; text-decoration: none; }
.brand-sub { font-weight: 400; color: #cbd5e1; margin-left: 0.25rem; }
.top-bar nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; align-items: center; gap: 0.25rem 1rem; }
.top-bar nav a { color: #f9fafb; text-decoration: none; padding: 0.5rem 0.25rem; display: inline-block; border-bottom: 2px solid transparent; }
.top-bar nav a:hover { border-bottom-color: #94a3b8; }
.top-bar nav a[aria-current] { border-bottom-color: #f9fafb; font-weight: 600; }
.top-bar .button-quiet { color: #f9fafb; border-color: #6b7280; background: transparent; }
.top-bar .button-quiet:hover { background: #1f2937; }

main { max-width: 72rem; margin: 0 auto; padding: 1.5rem 1.25rem 4rem; }
.panel { background: var(--paper); border: 1px solid var(--line); border-radius: 10px; padding: 1.5rem; }
.narrow { max-width: 30rem; margin: 2rem auto; }
.lead { color: var(--muted); margin-top: 0; }
.back { margin: 0 0 1rem; }

button {
  font: inherit; cursor: pointer; min-height: 2.75rem; padding: 0.5rem 1.1rem; border-radius: 8px;
  border: 1px solid #9ca3af; background: var(--paper); color: var(--ink);
}
button:hover { background: var(--wash); }
button:disabled { cursor: not-allowed; opacity: 0.6; }
.button-primary { background: var(--accent); border-color: var(--accent); color: var(--accent-ink); font-weight: 600; }
.button-primary:hover { background: #1e40af; }

.field { display: flex; flex-direction: column; gap: 0.35rem; margin: 1rem 0; }
.field label { font-weight: 600; }
.field input { font: inherit; padding: 0.6rem 0.75rem; border: 1px solid #9ca3af; border-radius: 8px; min-height: 2.75rem; width: 100%; }

.message { margin: 0.75rem 0; }
.message:empty { display: none; }
.message-error { color: var(--error); background: var(--error-wash); border: 1px solid #fecdca; border-radius: 8px; padding: 0.75rem 1rem; }
.message-error p { margin: 0 0 0.5rem; }
.message-error p:last-child { margin: 0; }
.message-ok { color: var(--ok); background: var(--ok-wash); border: 1px solid #abefc6; border-radius: 8px; padding: 0.75rem 1rem; }
.message-info { background: var(--info-wash); border: 1px solid #c7d7fe; border-radius: 8px; padding: 0.75rem 1rem; }

.role-list, .group-options, .group-list { list-style: none; margin: 0; padding: 0; }
.role-list { background: var(--paper); border: 1px solid var(--line); border-radius: 10px; }
.role-list li { padding: 0.85rem 1.1rem; border-top: 1px solid var(--line); display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.25rem 1rem; }
.role-list li:first-child { border-top: none; }
.role-list a { font-weight: 600; font-size: 1.05rem; overflow-wrap: anywhere; }
.role-list .role-groups { color: var(--muted); font-size: 0.95rem; overflow-wrap: anywhere; }

#role { background: var(--paper); border: 1px solid var(--line); border-radius: 10px; padding: 1.5rem; }
.meta { display: flex; flex-wrap: wrap; gap: 0.5rem 2rem; margin: 0.5rem 0 0; color: var(--muted); }
.meta div { display: flex; gap: 0.4rem; }
.meta dt { font-weight: 600; }
.meta dd { margin: 0; }
.prompt { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--wash); border-radius: 8px; padding: 0.75rem 1rem; margin: 0; }
.prompt.empty { color: var(--muted); font-style: italic; }

fieldset { border: 1px solid var(--line); border-radius: 10px; margin: 1rem 0; padding: 0.75rem 1rem 0.25rem; min-width: 0; }
legend { font-weight: 600; padding: 0 0.35rem; }
.hint { color: var(--muted); margin: 0.25rem 0 0.75rem; }
#unavailable { border-color: #fcd34d; background: var(--warn-wash); }

.group-options > li { border-top: 1px solid var(--line); padding: 0.85rem 0; display: grid; grid-template-columns: auto 1fr; column-gap: 0.75rem; }
.group-options > li:first-child { border-top: none; }
.group-options input[type="checkbox"] { width: 1.35rem; height: 1.35rem; margin: 0.1rem 0 0; accent-color: var(--accent); grid-row: 1 / span 3; cursor: pointer; }
.group-options input[type="checkbox"]:disabled { cursor: not-allowed; }
.group-head { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.25rem 0.6rem; }
.group-head label { font-weight: 600; font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; cursor: pointer; overflow-wrap: anywhere; }
.group-desc { margin: 0.15rem 0 0; }
.tool-names { margin: 0.35rem 0 0; color: var(--muted); font-size: 0.95rem; }
.tool-names code, .group-card dd code { display: inline-block; background: var(--wash); border: 1px solid var(--line); border-radius: 6px; padding: 0 0.35rem; margin: 0.1rem 0.25rem 0.1rem 0; color: var(--ink); }

.choice { display: flex; align-items: center; gap: 0.6rem; padding: 0.35rem 0; }
.choice input[type="radio"], .pin-options input[type="checkbox"] { width: 1.2rem; height: 1.2rem; margin: 0; accent-color: var(--accent); cursor: pointer; }
.every-group { border-top: 1px solid var(--line); margin-top: 0.25rem; padding-top: 0.75rem; }
.every-group input[type="checkbox"] { width: 1.35rem; height: 1.35rem; margin: 0; accent-color: var(--accent); cursor: pointer; }
.every-group label { font-weight: 600; cursor: pointer; }
.every-group-chosen #new-role-group-options { opacity: 0.6; }
.pin-options { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 0.4rem 1rem; }
.pin-options > li { display: flex; align-items: center; gap: 0.4rem; }
.badge { display: inline-block; font-size: 0.8rem; line-height: 1.4; padding: 0 0.45rem; border-radius: 999px; border: 1px solid var(--line); color: var(--muted); background: var(--paper); white-space: nowrap; }
.badge-warn { color: var(--warn); border-color: #fcd34d; }
.badge-fixed { color: var(--accent-ink); background: var(--accent); border-color: var(--accent); }
.read-only .hint { display: none; }
.read-only .group-options > li:not(:has(input:checked)) { color: var(--muted); }

.save-bar { position: sticky; bottom: 0; z-index: 1; background: var(--paper); border-top: 1px solid var(--line); margin: 1rem -0.5rem 0; padding: 0.75rem 0.5rem; }
.save-bar .message { margin: 0 0 0.75rem; }
.actions { display: flex; flex-wrap: wrap; gap: 0.75rem; margin-top: 1rem; }

dialog { border: 1px solid var(--line); border-radius: 12px; padding: 1.5rem; max-width: min(32rem, calc(100vw - 2rem)); color: var(--ink); box-shadow: 0 20px 50px rgba(15, 23, 42, 0.35); }
dialog::backdrop { background: rgba(15, 23, 42, 0.55); }
dialog h2 { margin-top: 0; }

.group-list { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fill, minmax(min(100%, 20rem), 1fr)); }
.group-card { background: var(--paper); border: 1px solid var(--line); border-radius: 10px; padding: 1rem 1.25rem; min-width: 0; }
.group-card h2 { margin: 0 0 0.25rem; font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 1.1rem; overflow-wrap: anywhere; }
.group-card dl { margin: 0.75rem 0 0; display: grid; grid-template-columns: auto 1fr; gap: 0.25rem 0.75rem; }
.group-card dt { font-weight: 600; color: var(--muted); }
.group-card dd { margin: 0; min-width: 0; }

.button-danger { background: var(--error); border-color: var(--error); color: #fff; font-weight: 600; }
.button-danger:hover { background: #912018; }
.count { display: inline-block; min-width: 1.4rem; margin-left: 0.35rem; padding: 0 0.4rem; border-radius: 999px; background: #f59e0b; color: #111827; font-size: 0.8rem; font-weight: 700; text-align: center; line-height: 1.4; }
.message-warn { color: var(--warn); background: var(--warn-wash); border: 1px solid #fcd34d; border-radius: 8px; padding: 0.75rem 1rem; }
.badge-danger { color: var(--error); border-color: #fecdca; background: var(--error-wash); }
.badge-ok { color: var(--ok); border-color: #abefc6; background: var(--ok-wash); }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }

.field select, .field textarea, .field input[type="number"], .field input[type="search"] { font: inherit; padding: 0.55rem 0.75rem; border: 1px solid #9ca3af; border-radius: 8px; min-height: 2.75rem; width: 100%; background: var(--paper); color: var(--ink); }
.field textarea { min-height: 6rem; resize: vertical; }
.field-row { display: grid; gap: 0 1rem; grid-template-columns: repeat(auto-fit, minmax(min(100%, 12rem), 1fr)); }
.toolbar { display: flex; flex-wrap: wrap; align-items: flex-end; gap: 0.5rem 1rem; margin: 0.5rem 0 1rem; }
.toolbar .field { margin: 0; min-width: min(100%, 14rem); }
.toolbar .hint { margin: 0; }
.create-form { margin-top: 1.5rem; }
.create-form h2 { margin-top: 0; }
.panel-inset { border: 1px solid var(--line); border-radius: 10px; padding: 0.5rem 1rem 1rem; margin: 1rem 0; background: var(--wash); }
.token-panel { margin: 1.25rem 0; border-color: #fcd34d; }
.token-panel h2 { margin-top: 0; }
.token-panel input { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }

.table-wrap { overflow-x: auto; background: var(--paper); border: 1px solid var(--line); border-radius: 10px; }
.table-wrap:has(table[hidden]) { display: none; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: 0.6rem 0.8rem; border-top: 1px solid var(--line); }
thead th { border-top: none; color: var(--muted); font-size: 0.9rem; white-space: nowrap; }
td.number { white-space: nowrap; }
.policy-cell { min-width: 12rem; }
.policy-cell .badge { margin: 0.1rem 0; }

.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.35rem 1rem; margin: 0.75rem 0; }
.facts dt { font-weight: 600; color: var(--muted); }
.facts dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
pre.json { background: var(--wash); border: 1px solid var(--line); border-radius: 8px; padding: 0.75rem 1rem; margin: 0.25rem 0 0.75rem; overflow: auto; max-height: 24rem; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 0.9rem; }
h3 { font-size: 1rem; margin: 1rem 0 0.25rem; }

.card-list, .call-list { list-style: none; margin: 0; padding: 0; display: grid; gap: 1rem; }
.approval { background: var(--paper); border: 1px solid #fcd34d; border-radius: 10px; padding: 1rem 1.25rem; min-width: 0; }
.approval h2 { margin: 0; font-size: 1.15rem; }
.approval.answered { border-color: var(--line); opacity: 0.85; }
.question-text { white-space: pre-wrap; overflow-wrap: anywhere; }
.question-form fieldset { margin: 0.5rem 0; }
.call-list { gap: 0.5rem; }
.call details { border: 1px solid var(--line); border-radius: 8px; background: var(--paper); }
.call summary { cursor: pointer; padding: 0.6rem 0.9rem; min-height: 2.75rem; display: flex; flex-wrap: wrap; align-items: center; gap: 0.25rem 0.5rem; }
.call details[open] summary { border-bottom: 1px solid var(--line); }
.call details > :not(summary) { margin-left: 0.9rem; margin-right: 0.9rem; }
.group-card-warn { border-color: #fecdca; }
.group-card > button { margin-top: 0.75rem; }
.row-target > th, .row-target > td { background: var(--wash); }
#agent, #tool { margin-bottom: 1rem; }

.policy-layer h2 { margin-bottom: 0.15rem; }
.policy-layer .hint { margin: 0 0 0.5rem; }
.policy-list { list-style: none; margin: 0; padding: 0; background: var(--paper); border: 1px solid var(--line); border-radius: 10px; }
.policy-list > li { padding: 0.85rem 1.1rem; border-top: 1px solid var(--line); min-width: 0; }
.policy-list > li:first-child { border-top: none; }
.policy-head { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.25rem 0.6rem; }
.policy-head h3 { margin: 0; font-size: 1.05rem; }
.policy-list p { margin: 0.35rem 0 0; overflow-wrap: anywhere; }
.policy-list .message { margin: 0.5rem 0 0; }
.policy-list .actions { margin-top: 0.6rem; }
.policy-reason { color: var(--muted); }
#policy-form { margin: 1rem 0 1.5rem; }
.field textarea.code-input { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.9rem; }
.problem-list { margin: 0.25rem 0 0; padding-left: 1.25rem; }
.link-button { min-height: 0; padding: 0; border: none; background: none; color: inherit; font-weight: 600; text-decoration: underline; }
.link-button:hover { background: none; }
.by-policy { margin: 0.25rem 0 0.75rem; padding-left: 1.25rem; }
.flip-list { list-style: none; margin: 0; padding: 0; display: grid; gap: 0.5rem; }
.flip-list > li { border: 1px solid var(--line); border-radius: 8px; background: var(--paper); padding: 0.5rem 0.75rem; min-width: 0; }
.flip-list p { margin: 0.15rem 0; overflow-wrap: anywhere; }

@media (max-width: 40rem) {
  main { padding: 1rem 0.75rem 3rem; }
  #role, .panel { padding: 1rem; }
  .narrow { margin: 1rem auto; }
  h1 { font-size: 1.45rem; }
  .actions button, #save { flex: 1 1 auto; width: 100%; }
  .facts { grid-template-columns: 1fr; gap: 0 1rem; }
  .facts dd { margin-bottom: 0.4rem; }
  .top-bar nav ul { gap: 0.1rem 0.75rem; }
  .table-wrap thead { display: none; }
  .table-wrap tr { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.2rem 0.6rem; padding: 0.6rem 0.75rem; border-top: 1px solid var(--line); }
  .table-wrap tbody tr:first-child { border-top: none; }
  .table-wrap th, .table-wrap td { display: block; border: none; padding: 0; }
  .table-wrap tbody th { flex: 1 0 100%; }
  .policy-cell { min-width: 0; flex: 1 0 100%; }
  .policy-list .actions button { width: auto; }
}
`;
