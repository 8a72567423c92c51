import { byId, element, setMessage } from "./dom";

/** Shows an agent's token once, with a copy button and the warning that it cannot be shown again. */
export function showToken(agentName: string, token: string) {
  const panel = byId("token-panel");
  const input = element("input", { id: "agent-token", type: "text", readonly: true, value: token, "aria-describedby": "token-warning", spellcheck: "false", autocomplete: "off" });
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
    element("h2", { id: "token-title", text: `Token for ${agentName}` }),
    element("p", { id: "token-warning", className: "message message-warn", text: "This token is shown only now. Copy it and hand it to the agent's runtime: toolgate keeps no copy, and leaving this page loses it. Issuing a new token makes this one stop working." }),
    element("div", { className: "field" }, [element("label", { for: "agent-token", text: "Agent token" }), input]),
    element("div", { className: "actions" }, [copy]),
    copied,
  );
  panel.hidden = false;
  input.focus();
  input.select();
}

export const hideToken = () => {
  byId("token-panel").replaceChildren();
  byId("token-panel").hidden = true;
};
