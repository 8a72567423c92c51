// The policy editor: checked against the catalog as the operator types (POST /policies/validate), simulated against
// recorded calls, saved with If-Match of the version it loaded.
import { api, ApiError, failed, newestOnly, segment } from "./api";
import { byId, element, inputById, setMessage } from "./dom";
import { cedarInput, draftId, draftMode, fillForm, keepCompiled, policyForm, readDraft, showScopeField, showWritten, written } from "./policy-form";
import { runSimulation } from "./policy-simulate";
import { modeText, problemPlace, problemText } from "./policy-text";
import type { CedarPolicy, PolicyCheck, PolicyProblem } from "./types";

export type EditorHooks = { saved: (policy: CedarPolicy) => Promise<unknown>; deleted: (id: string) => Promise<unknown>; exists: (id: string) => boolean };

const CHECK_DELAY_MS = 500;

let editing: CedarPolicy | null = null;
let hooks: EditorHooks;
let checkTimer: number | undefined;
let saving = false;
const checkRequest = newestOnly();

/** Puts the caret on a problem's line and column in the Cedar text. */
function selectProblem(problem: PolicyProblem) {
  const area = cedarInput();
  const lines = area.value.split("\n");
  let at = 0;
  for (let line = 1; line < problem.line! && line <= lines.length; line++) at += lines[line - 1]!.length + 1;
  at += (problem.column ?? 1) - 1;
  area.focus();
  area.setSelectionRange(at, at + Math.max(0, (problem.end ?? 0) - (problem.start ?? 0)));
}

function problemItem(problem: PolicyProblem) {
  const place = problemPlace(problem);
  if (!place || written() !== "cedar") return element("li", { text: problemText(problem) });
  const go = element("button", { type: "button", className: "link-button", text: place[0]!.toUpperCase() + place.slice(1) });
  go.addEventListener("click", () => selectProblem(problem));
  return element("li", {}, [go, ": " + problemText({ ...problem, line: undefined })]);
}

function showCheck(kind: "error" | "ok" | "info" | "", lead: string, problems: PolicyProblem[] = []) {
  const target = byId("policy-check");
  target.className = kind ? `message message-${kind}` : "";
  target.replaceChildren(...(lead ? [element("p", { text: lead })] : []), ...(problems.length ? [element("ul", { className: "problem-list" }, problems.map(problemItem))] : []));
}

function showCompiled(cedar: string) {
  keepCompiled(cedar);
  byId("policy-compiled").hidden = written() !== "rule" || !cedar;
  byId("policy-compiled-text").textContent = cedar;
}

/** A 400's problems: Cedar's (with their places) or the request's own fields. */
function problemsOf(error: ApiError): PolicyProblem[] {
  if (Array.isArray(error.data?.problems)) return error.data.problems as PolicyProblem[];
  if (Array.isArray(error.data?.details)) return (error.data.details as Array<{ path: string; message: string }>).map((detail) => ({ message: `${detail.path}: ${detail.message}` }));
  return [{ message: error.message }];
}

async function check(now: boolean) {
  window.clearTimeout(checkTimer);
  const read = readDraft();
  if ("missing" in read) return now ? showCheck("error", read.missing) : showCheck("", "");
  const id = draftId();
  if (now) showCheck("info", "Checking…");
  try {
    const result = await checkRequest<PolicyCheck>("POST", "policies/validate", { body: { ...read.draft, ...("id" in id ? id : {}) } });
    showCompiled(result.cedar);
    if (result.valid) showCheck("ok", `Valid against the catalog: ${result.effect === "ask" || result.effect === "allow" ? "an" : "a"} ${result.effect} policy.`);
    else showCheck("error", "Not valid against the catalog:", result.problems);
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) showCheck("error", "Not valid:", problemsOf(error));
    else failed(byId("policy-check"), error);
  }
}

const scheduleCheck = () => {
  window.clearTimeout(checkTimer);
  checkTimer = window.setTimeout(() => void check(false), CHECK_DELAY_MS);
};

function clearResults() {
  showCheck("", "");
  byId("policy-simulation").hidden = true;
  setMessage(byId("policy-save-status"), "");
  byId("policy-save-problem").hidden = true;
  byId("policy-reload").hidden = true;
}

function open(policy: CedarPolicy | null) {
  editing = policy;
  fillForm(policy);
  clearResults();
  policyForm().hidden = false;
  byId("policy-form-title").focus();
}

export function newPolicy() {
  open(null);
  inputById("policy-id").focus();
}

/** Opens a stored policy as it is now (its version is the one a save will name in If-Match) and checks it. */
export async function editPolicy(id: string, status: HTMLElement) {
  try {
    open(await api<CedarPolicy>("GET", "policies/" + segment(id)));
    await check(false);
    return true;
  } catch (error) {
    failed(status, error);
    return false;
  }
}

function close() {
  window.clearTimeout(checkTimer);
  editing = null;
  policyForm().hidden = true;
  byId("new-policy").focus();
}

function showSaveProblem(text: string, reload = false) {
  setMessage(byId("policy-save-status"), "");
  byId("policy-save-error").textContent = text;
  byId("policy-reload").hidden = !reload;
  byId("policy-save-problem").hidden = false;
}

function refuse(missing: string, field: string) {
  showSaveProblem(missing);
  byId(field).focus();
}

async function save() {
  if (saving) return;
  clearResults();
  const read = readDraft();
  if ("missing" in read) return refuse(read.missing, read.field);
  const named = editing ? { id: editing.id } : draftId();
  if ("missing" in named) return refuse(named.missing, named.field);
  if (!editing && hooks.exists(named.id)) return refuse(`There is already a policy "${named.id}": open it from the list to change it.`, "policy-id");
  const button = byId<HTMLButtonElement>("policy-save");
  saving = true;
  button.disabled = true;
  setMessage(byId("policy-save-status"), "Saving…");
  try {
    const saved = await api<CedarPolicy>("PUT", "policies/" + segment(named.id), { body: read.draft, ifMatch: editing?.version });
    const created = !editing;
    editing = saved;
    fillForm(saved);
    setMessage(byId("policy-save-status"), `${created ? "Created" : "Saved"}: ${saved.id} is at version ${saved.version}, ${modeText(saved.mode)}.`);
    await hooks.saved(saved);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status === 401) return failed(byId("policy-save-error"), error);
    if (error.status === 400) showCheck("error", "Not valid:", problemsOf(error));
    showSaveProblem("Not saved. " + error.message, error.code === "version_conflict");
  } finally {
    saving = false;
    button.disabled = false;
  }
}

function simulate() {
  const read = readDraft();
  if ("missing" in read) return showCheck("error", read.missing);
  const named = editing ? { id: editing.id } : draftId();
  if ("missing" in named) return showCheck("error", named.missing);
  byId("policy-simulation").hidden = false;
  const note = draftMode() === "log_only" ? "The draft is log-only, and a log-only policy decides no call: choose Enforce to see what enforcing it would change." : undefined;
  void runSimulation(byId("policy-simulation-result"), { put: [{ ...read.draft, id: named.id }] }, note);
}

function wireDelete() {
  const dialog = byId<HTMLDialogElement>("delete-policy");
  byId("policy-delete").addEventListener("click", () => {
    if (!editing) return;
    byId("delete-policy-name").textContent = editing.id;
    setMessage(byId("delete-policy-error"), "");
    dialog.showModal();
    byId("delete-policy-cancel").focus();
    void runSimulation(byId("delete-policy-simulation"), { delete: [editing.id] });
  });
  byId("delete-policy-cancel").addEventListener("click", () => dialog.close());
  byId("delete-policy-confirm").addEventListener("click", async () => {
    if (!editing) return;
    const { id, version } = editing;
    const button = byId<HTMLButtonElement>("delete-policy-confirm");
    button.disabled = true;
    try {
      await api("DELETE", "policies/" + segment(id), { ifMatch: version });
      dialog.close();
      close();
      await hooks.deleted(id);
    } catch (error) {
      if (error instanceof ApiError && error.status !== 401) setMessage(byId("delete-policy-error"), "Not deleted. " + error.message, "error");
      else failed(byId("delete-policy-error"), error);
    } finally {
      button.disabled = false;
    }
  });
}

export function wirePolicyEditor(given: EditorHooks) {
  hooks = given;
  const form = policyForm();
  form.addEventListener("input", (event) => {
    const target = event.target as HTMLElement;
    if (target.id === "policy-scope-kind") showScopeField();
    if ((target as HTMLInputElement).name === "policy-written") showWritten();
    if (target.id === "policy-description" || target.id === "policy-id") return;
    byId("policy-simulation").hidden = true;
    scheduleCheck();
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void save();
  });
  byId("policy-check-now").addEventListener("click", () => void check(true));
  byId("policy-simulate").addEventListener("click", simulate);
  byId("policy-cancel").addEventListener("click", close);
  byId("policy-reload").addEventListener("click", async () => {
    if (!editing || !(await editPolicy(editing.id, byId("policy-save-error")))) return;
    setMessage(byId("policy-save-status"), `Reloaded: this is the policy as it is now, at version ${editing.version}. Apply your change again if you still want it.`);
  });
  wireDelete();
}
