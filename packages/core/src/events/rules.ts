import { existsSync, readFileSync } from "node:fs";
import * as z from "zod";

/** A pattern as EventBridge rules (and SST's bus.subscribe) take it: exact values for source and detail-type, matchers for detail. */
export const EventPatternInput = z.strictObject({
  source: z.array(z.string().min(1)).min(1).optional(),
  detailType: z.array(z.string().min(1)).min(1).optional(),
  detail: z.record(z.string(), z.unknown()).optional(),
});

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
