import { api, failed, segment, withQuery } from "./api";
import { byId, code, element, inputById, setMessage, timeElement } from "./dom";
import { hideToken, showAnswerToken } from "./token";
import type { AnswerToken, Page } from "./types";

function tokenRow(token: AnswerToken) {
  return element("tr", { "data-answer-token": token.id }, [
    element("th", { scope: "row", text: token.name }),
    element("td", {}, [code(token.id)]),
    element("td", {}, [timeElement(token.createdAt)]),
    element("td", {}, [element("button", { type: "button", text: "Revoke", "data-revoke": token.id, "data-name": token.name, "aria-label": `Revoke ${token.name}` })]),
  ]);
}

export async function loadAnswerTokens() {
  try {
    const { answerTokens } = await api<Page<"answerTokens", AnswerToken>>("GET", withQuery("answer-tokens", { limit: 100 }));
    byId("answer-token-rows").replaceChildren(...answerTokens.map(tokenRow));
    byId("answer-token-table").hidden = answerTokens.length === 0;
    byId("answer-token-none").hidden = answerTokens.length > 0;
  } catch (error) {
    failed(byId("answer-token-status"), error);
  }
}

async function revoke(button: HTMLButtonElement) {
  const status = byId("answer-token-status");
  button.disabled = true;
  try {
    await api("DELETE", "answer-tokens/" + segment(button.dataset.revoke!));
    setMessage(status, `Revoked: ${button.dataset.name} can no longer read or answer questions.`);
    await loadAnswerTokens();
  } catch (error) {
    button.disabled = false;
    failed(status, error);
  }
}

/** Answering tokens on the questions page: made (shown once), listed and revoked. */
export function wireAnswerTokens() {
  const form = byId<HTMLFormElement>("answer-token-form");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const status = byId("answer-token-status");
    const name = inputById("answer-token-name").value.trim();
    hideToken();
    if (!name) return setMessage(status, "Name the token after who will hold it, e.g. the chat bot.", "error");
    const button = form.querySelector<HTMLButtonElement>("button[type=submit]")!;
    button.disabled = true;
    try {
      const made = await api<AnswerToken & { token: string }>("POST", "answer-tokens", { body: { name } });
      form.reset();
      setMessage(status, "");
      showAnswerToken(made.name, made.token);
      await loadAnswerTokens();
    } catch (error) {
      failed(status, error);
    } finally {
      button.disabled = false;
    }
  });
  byId("answer-token-rows").addEventListener("click", (event) => {
    const button = (event.target as HTMLElement).closest<HTMLButtonElement>("button[data-revoke]");
    if (button && !button.disabled) void revoke(button);
  });
}
