import * as z from "zod";
import { NAME_PATTERN } from "../tool/schema";
import type { Issue } from "../validation";
import { MAX_PROMPTS_PER_GROUP, MAX_RESOURCES_PER_GROUP, MAX_TEMPLATES_PER_GROUP, OfferedPrompt, OfferedResource, OfferedTemplate } from "./schema";
import type { Offers } from "./schema";

/** What a server listed, before toolgate reads it. */
export type Listed = { resources: unknown[]; resourceTemplates: unknown[]; prompts: unknown[] };

const LIMITS = { resources: MAX_RESOURCES_PER_GROUP, resourceTemplates: MAX_TEMPLATES_PER_GROUP, prompts: MAX_PROMPTS_PER_GROUP } as const;

const ServerPrompt = OfferedPrompt.extend({ name: z.string().min(1).max(256) });

/**
 * What a server offers as toolgate keeps it: resources and templates as listed (their known fields), prompts named with
 * the group's toolPrefix as its tools are. Too many of a kind, an entry that is not what MCP lists, or a prompt name
 * that is not a valid name once prefixed, is a problem to refuse the import with.
 */
export function offersFrom(toolPrefix: string | undefined, listed: Listed): { offers: Offers } | { issues: Issue[] } {
  const issues: Issue[] = [];
  for (const kind of ["resources", "resourceTemplates", "prompts"] as const)
    if (listed[kind].length > LIMITS[kind]) issues.push({ path: kind, message: `the server lists ${listed[kind].length} ${kind}; a group can have at most ${LIMITS[kind]}` });
  const read = <T>(schema: z.ZodType<T>, kind: string, items: unknown[]) =>
    items.flatMap((item, index) => {
      const parsed = schema.safeParse(item);
      if (parsed.success) return [parsed.data];
      issues.push({ path: `${kind}.${index}`, message: `is not a ${kind === "prompts" ? "prompt" : kind === "resources" ? "resource" : "resource template"} as MCP lists one (${parsed.error.issues[0]?.path.join(".") || "it"} ${parsed.error.issues[0]?.message ?? ""})` });
      return [];
    });
  const resources = read(OfferedResource, "resources", listed.resources);
  const resourceTemplates = read(OfferedTemplate, "resourceTemplates", listed.resourceTemplates);
  const prompts = read(ServerPrompt, "prompts", listed.prompts).map((prompt, index) => {
    const name = toolPrefix ? `${toolPrefix}_${prompt.name}` : prompt.name;
    if (!NAME_PATTERN.test(name)) issues.push({ path: `prompts.${index}.name`, message: `"${name}" (from the MCP prompt "${prompt.name}") is not a valid prompt name: 1-64 letters, digits, '_' or '-'` });
    return { ...prompt, name };
  });
  return issues.length ? { issues } : { offers: { resources, resourceTemplates, prompts } };
}

/** Whether a server offers anything besides tools. */
export const offersAnything = (offers: Offers) => offers.resources.length + offers.resourceTemplates.length + offers.prompts.length > 0;
