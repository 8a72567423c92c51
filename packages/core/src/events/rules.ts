import { existsSync, readFileSync } from "node:fs";
import * as z from "zod";
import { PER_CALL_EVENT_TYPES, TOOLGATE_EVENT_SOURCE } from "./types";
import type { ToolgateEventType } from "./types";

/** A pattern as EventBridge rules (and SST's bus.subscribe) take it: exact values for source and detail-type, matchers for detail. */
export const EventPatternInput = z.strictObject({
  source: z.array(z.string().min(1)).min(1).optional(),
  detailType: z.array(z.string().min(1)).min(1).optional(),
  detail: z.record(z.string(), z.unknown()).optional(),
});
export type EventPatternInput = z.infer<typeof EventPatternInput>;

/** A subscriber: events matching the pattern are POSTed (the EventBridge envelope as JSON) to the webhook. */
export const WebhookRule = z.strictObject({
  name: z.string().regex(/^[A-Za-z][A-Za-z0-9]{0,63}$/, "a name of letters and digits, starting with a letter"),
  pattern: EventPatternInput,
  webhook: z.url({ protocol: /^https?$/ }),
});
export type WebhookRule = z.infer<typeof WebhookRule>;

export const WebhookRules = z.array(WebhookRule).refine((rules) => new Set(rules.map((rule) => rule.name)).size === rules.length, "rule names must be unique");

/**
 * The subscribers named by TOOLGATE_EVENT_RULES (a JSON list of rules, or the path of a file holding one), else by
 * the file `fallbackFile` if it exists; none otherwise. A list that is not valid stops the start with the reason.
 */
export function loadWebhookRules(value: string | undefined, fallbackFile?: string): WebhookRule[] {
  const inline = value?.trim();
  const text = inline
    ? inline.startsWith("[") ? inline : readFileSync(inline, "utf8")
    : fallbackFile && existsSync(fallbackFile) ? readFileSync(fallbackFile, "utf8") : undefined;
  if (text === undefined) return [];
  const where = inline ? (inline.startsWith("[") ? "TOOLGATE_EVENT_RULES" : inline) : fallbackFile!;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`The event rules in ${where} are not valid JSON.`);
  }
  const rules = WebhookRules.safeParse(parsed);
  if (!rules.success)
    throw new Error(`The event rules in ${where} are not valid: ${rules.error.issues.map((issue) => `${issue.path.join(".") || "(list)"}: ${issue.message}`).join("; ")}.`);
  return rules.data;
}

/** Whether a pattern can match toolgate's events of this type; one that also names detail fields counts as a match. */
export const matchesType = (pattern: EventPatternInput, type: ToolgateEventType) =>
  (!pattern.source || pattern.source.includes(TOOLGATE_EVENT_SOURCE)) && (!pattern.detailType || pattern.detailType.includes(type));

export const CALL_EVENT_SETTINGS = ["subscribed", "always"] as const;

/**
 * The per-call events to publish: those a rule subscribes to ("subscribed", the default), or all of them ("always",
 * for subscribers of the bus that are not among these rules: an EventBridge rule or API destination of your own).
 */
export function publishedCallEvents(rules: readonly WebhookRule[], setting: string | undefined): ToolgateEventType[] {
  const chosen = setting?.trim() || "subscribed";
  if (!(CALL_EVENT_SETTINGS as readonly string[]).includes(chosen))
    throw new Error(`TOOLGATE_CALL_EVENTS must be one of ${CALL_EVENT_SETTINGS.join(", ")}; got "${setting}".`);
  if (chosen === "always") return [...PER_CALL_EVENT_TYPES];
  return PER_CALL_EVENT_TYPES.filter((type) => rules.some((rule) => matchesType(rule.pattern, type)));
}
