// Everything the pages show goes through these helpers: text is set with textContent, never parsed as HTML.

export type Child = Node | string | null | undefined | false;
type Attributes = Record<string, string | number | boolean | null | undefined> & { text?: string | number; className?: string };

export function element<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, children: Child[] = []): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = String(value);
    else if (key === "className") node.className = String(value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) node.append(child);
  return node;
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`The page has no element #${id}.`);
  return found as T;
}

export const maybeById = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T | null;

export const inputById = (id: string) => byId<HTMLInputElement>(id);

/** Nodes separated by spaces, for inline lists of badges or code names. */
export const spaced = (nodes: Child[]): Child[] => nodes.flatMap((node, index) => (index === 0 ? [node] : [" ", node]));

export type MessageKind = "error" | "ok" | "info" | undefined;

export function setMessage(target: HTMLElement, text: string, kind?: MessageKind) {
  target.textContent = text;
  target.classList.toggle("message-error", kind === "error");
}

export function formatTime(iso: string | undefined) {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}

export const timeElement = (iso: string | undefined) => (iso ? element("time", { datetime: iso, text: formatTime(iso) }) : element("span", { text: "—" }));

export const tokensLabel = (tokens: number | undefined) => Number(tokens || 0).toLocaleString("en") + " tokens";

export const plural = (count: number, one: string, many = one + "s") => `${count} ${count === 1 ? one : many}`;

/** A term and its value, for the <dl> fact lists. */
export const fact = (term: string, ...value: Child[]): HTMLElement[] => [element("dt", { text: term }), element("dd", {}, value)];

export const badge = (text: string, kind?: "warn" | "danger" | "ok" | "fixed" | "tokens") =>
  element("span", { className: kind ? `badge badge-${kind}` : "badge", text });

export const code = (text: string) => element("code", { text });

/** Pretty JSON for arguments and results, shown as text inside <pre>. */
export function jsonText(value: unknown) {
  if (value === undefined) return "";
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

export const consoleHref = (path: string) => (document.body.dataset.root || "./") + "console" + path;

/** Puts `wanted` in the list in this order, moving or removing only what differs, so a card that stays is never rebuilt or re-inserted. */
export function arrange(list: HTMLElement, wanted: HTMLElement[]) {
  const kept = new Set(wanted);
  for (const child of Array.from(list.children)) if (!kept.has(child as HTMLElement)) child.remove();
  let next = list.firstElementChild;
  for (const card of wanted) {
    if (card === next) next = next.nextElementSibling;
    else list.insertBefore(card, next);
  }
}

/** The element the page's URL names after #, scrolled into view once the list that holds it is shown; null when there is none. */
export function revealHashTarget(): HTMLElement | null {
  const target = location.hash ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
  target?.scrollIntoView({ block: "center" });
  return target;
}
