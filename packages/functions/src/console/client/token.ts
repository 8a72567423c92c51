import { byId, element, setMessage } from "./dom";

type Shown = { title: string; inputId: string; label: string; warning: string };

/** Shows a token once, with a copy button and the warning that it cannot be shown again. */
function showOnce(token: string, { title, inputId, label, warning }: Shown) {
  const panel = byId("token-panel");
  const input = element("input", { id: inputId, type: "text", readonly: true, value: token, "aria-describedby": "token-warning", spellcheck: "false", autocomplete: "off" });
  const copied = element("p", { id: "token-copied", className: "message", role: "status" });
  const copy = element("button", { type: "button", id: "copy-token", text: "Copy token" });
  copy.addEventListener("click", async () => {
    input.select();
    try {
      await navigator.clipboard.writeText(token);
      setMessage(copied, "Copied to the clipboard.");
    } catch {
      setMessage(copied, "This browser did not allow copying: the token is selected, copy it with Ctrl+C or ⌘C.");
    }
  });
  panel.replaceChildren(
    element("h2", { id: "token-title", text: title }),
    element("p", { id: "token-warning", className: "message message-warn", text: warning }),
    element("div", { className: "field" }, [element("label", { for: inputId, text: label }), input]),
    element("div", { className: "actions" }, [copy]),
    copied,
  );
  panel.hidden = false;
  input.focus();
  input.select();
}

/** An agent's token, shown once. */
export const showToken = (agentName: string, token: string) =>
  showOnce(token, {
    title: `Token for ${agentName}`,
    inputId: "agent-token",
    label: "Agent token",
    warning: "This token is shown only now. Copy it and hand it to the agent's runtime: toolgate keeps no copy, and leaving this page loses it. Issuing a new token makes this one stop working.",
  });

/** An answering token, shown once. */
export const showAnswerToken = (name: string, token: string) =>
  showOnce(token, {
    title: `Answering token ${name}`,
    inputId: "answer-token",
    label: "Answering token",
    warning: "This token is shown only now. Copy it and hand it to the chat bot: toolgate keeps no copy, and leaving this page loses it. Revoke it below when the bot no longer needs it.",
  });

export const hideToken = () => {
  byId("token-panel").replaceChildren();
  byId("token-panel").hidden = true;
};
