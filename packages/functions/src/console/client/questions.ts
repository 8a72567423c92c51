import { api, ApiError, failed, newestOnly, segment, withQuery } from "./api";
import { arrange, byId, code, consoleHref, element, fact, setMessage, timeElement } from "./dom";
import type { CallRecord } from "./types";
import { formContent, formFields } from "./question-form";
import type { ModuleForm } from "./question-form";
import { queueCount } from "./queue-count";
import type { Queue } from "./queue-count";

const QUEUE = withQuery("calls", { status: "awaiting_answer", limit: 100 });
const REFRESH_MS = 5_000;

/** An agent's question (its options, several with multiple), or a module's (its form). */
type Asked = { question: string; options?: string[]; multiple?: boolean; form?: ModuleForm; fields?: string[] };

const queueRequest = newestOnly();

const count = queueCount("question-count", QUEUE);
export const refreshQuestionCount = count.refresh;

const askedOf = (call: CallRecord): Asked => {
  const args = (call.arguments ?? {}) as Partial<Asked>;
  const form = args.form && typeof args.form.properties === "object" ? { form: args.form, fields: Array.isArray(args.fields) ? args.fields.map(String) : [] } : {};
  return { question: String(args.question ?? ""), ...(Array.isArray(args.options) ? { options: args.options.map(String) } : {}), multiple: args.multiple === true, ...form };
};

/** Where the answer is given: a module's form, a choice among the options (several with multiple), or the person's own words. */
function answerField(call: CallRecord, asked: Asked) {
  if (asked.form) return formFields(call.callId, asked.form, asked.fields);
  const name = "answer-" + call.callId;
  if (!asked.options)
    return element("div", { className: "field" }, [
      element("label", { for: name, text: "Answer" }),
      element("textarea", { id: name, name: "answer", rows: 3, maxlength: 10_000, required: true }),
    ]);
  const type = asked.multiple ? "checkbox" : "radio";
  return element("fieldset", {}, [
    element("legend", { text: asked.multiple ? "Choose one or more" : "Choose one" }),
    ...asked.options.map((option, index) =>
      element("div", { className: "choice" }, [
        element("input", { type, id: `${name}-${index}`, name: "answer", value: option }),
        element("label", { for: `${name}-${index}`, text: option }),
      ]),
    ),
  ]);
}

function questionCard(call: CallRecord) {
  const question = askedOf(call);
  questions.set(call.callId, question);
  const titleId = "question-" + call.callId;
  const form = element("form", { className: "question-form", novalidate: true, "aria-labelledby": titleId }, [
    answerField(call, question),
    element("p", { className: "message", role: "status", "data-result": "" }),
    element("div", { className: "actions" }, [
      element("button", { type: "submit", className: "button-primary", text: "Answer", "data-answer": "accept" }),
      element("button", { type: "button", text: "Decline", "data-answer": "decline" }),
    ]),
  ]);
  return element("li", { className: "approval question", "data-call": call.callId }, [
    element("h2", { id: titleId, tabindex: -1, className: "question-text", text: question.question }),
    element("dl", { className: "facts" }, [
      ...fact("Agent", element("a", { href: consoleHref("/agents/" + encodeURIComponent(call.agentId)), text: call.agentName ?? call.agentId })),
      ...fact("Role", element("a", { href: consoleHref("/roles/" + encodeURIComponent(call.roleId)), text: call.roleName ?? call.roleId })),
      ...(call.askedFor ? fact("Asked by", "the module, during call ", code(call.askedFor)) : []),
      ...fact("Asked", timeElement(call.startedAt)),
      ...fact("Answer deadline", timeElement(call.deadline)),
      ...fact("Call id", code(call.callId)),
    ]),
    form,
  ]);
}

/** Cards by callId, made once and kept while the question waits: a refresh never loses an answer being typed. */
const cards = new Map<string, HTMLElement>();
/** What each card asks, to read its answer as the question takes it. */
const questions = new Map<string, Asked>();

function showQueue(calls: CallRecord[]) {
  const listed = new Set(calls.map((call) => call.callId));
  for (const [callId, card] of cards) if (!listed.has(callId) && !card.dataset.answering) cards.delete(callId);
  const list = byId("question-list");
  const stillAnswering = Array.from(list.children as HTMLCollectionOf<HTMLElement>).filter((card) => !listed.has(card.dataset.call!) && card.dataset.answering);
  const wanted = calls.map((call) => cards.get(call.callId) ?? cards.set(call.callId, questionCard(call)).get(call.callId)!);
  arrange(list, [...wanted, ...stillAnswering]);
}

export async function loadQuestions() {
  const status = byId("load-status");
  try {
    const queue = await queueRequest<Queue>("GET", QUEUE);
    count.show(queue);
    showQueue(queue.calls);
    byId("questions-updated").replaceChildren("Checked ", timeElement(new Date().toISOString()), ` · refreshes every ${REFRESH_MS / 1000} s`);
    setMessage(status, byId("question-list").children.length ? "" : "No agent is waiting for an answer.");
  } catch (error) {
    failed(status, error);
  }
}

type Answer = { answer: string | string[] } | { content: Record<string, unknown> } | { problem: string };

/** The answer the card's form holds (a module's form filled in, a choice, words), or a sentence saying what is missing. */
function answerIn(card: HTMLElement, asked: Asked): Answer {
  if (asked.form) return formContent(card, asked.form) as Answer;
  const chosen = chosenAnswer(card);
  return typeof chosen === "object" && !Array.isArray(chosen) ? chosen : { answer: chosen };
}

function chosenAnswer(card: HTMLElement): string | string[] | { problem: string } {
  const text = card.querySelector<HTMLTextAreaElement>("textarea[name=answer]");
  if (text) return text.value.trim() || { problem: "Write an answer, or decline the question." };
  const chosen = Array.from(card.querySelectorAll<HTMLInputElement>("input[name=answer]:checked")).map((input) => input.value);
  if (!chosen.length) return { problem: "Choose an answer, or decline the question." };
  return card.querySelector("input[type=checkbox]") ? chosen : chosen[0]!;
}

async function answer(card: HTMLElement, action: "accept" | "decline") {
  const callId = card.dataset.call!;
  const result = card.querySelector<HTMLElement>("[data-result]")!;
  const chosen = action === "accept" ? answerIn(card, questions.get(callId) ?? { question: "" }) : { action: "decline" as const };
  if ("problem" in chosen) return setMessage(result, chosen.problem, "error");
  const buttons = card.querySelectorAll<HTMLButtonElement>("button[data-answer]");
  for (const each of buttons) each.disabled = true;
  card.dataset.answering = "true";
  setMessage(result, action === "accept" ? "Sending the answer…" : "Declining…");
  try {
    await api<CallRecord>("POST", `calls/${segment(callId)}/answer`, { body: chosen });
    card.querySelector("form")?.replaceWith(
      element("p", { className: "message message-ok", role: "status", text: action === "accept" ? "Answered: the agent has your answer." : "Declined: the agent is told you will not answer." }),
    );
    cards.delete(callId);
    questions.delete(callId);
    byId("answered-list").prepend(card);
    byId("answered").hidden = false;
  } catch (error) {
    for (const each of buttons) each.disabled = false;
    if (error instanceof ApiError && error.status === 409) {
      setMessage(result, error.message, "error");
      cards.delete(callId);
    } else failed(result, error);
  } finally {
    delete card.dataset.answering;
  }
  await loadQuestions();
}

export function wireQuestionsPage() {
  const list = byId("question-list");
  list.addEventListener("submit", (event) => {
    event.preventDefault();
    const card = (event.target as HTMLElement).closest<HTMLElement>("li.question");
    if (card) void answer(card, "accept");
  });
  list.addEventListener("click", (event) => {
    const button = (event.target as HTMLElement).closest<HTMLButtonElement>("button[data-answer=decline]");
    const card = button?.closest<HTMLElement>("li.question");
    if (button && card && !button.disabled) void answer(card, "decline");
  });
  byId("refresh-questions").addEventListener("click", () => void loadQuestions());
  window.setInterval(() => {
    if (!document.hidden && !byId("page").hidden) void loadQuestions();
  }, REFRESH_MS);
}
