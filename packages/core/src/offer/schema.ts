import * as z from "zod";
import { MAX_TOOL_TIMEOUT_MS } from "../policy/schema";

/** What a group's server offers besides tools, and what the guard calls each use of it: a resource read, a prompt got. */
export const OfferKind = z.enum(["resource", "prompt"]);
export type OfferKind = z.infer<typeof OfferKind>;

/** The action (Cedar's, and a call record's `tool` for a read) each kind of use is. */
export const OFFER_ACTIONS = { resource: "resources/read", prompt: "prompts/get" } as const satisfies Record<OfferKind, string>;
export const isOfferAction = (name: string) => name === OFFER_ACTIONS.resource || name === OFFER_ACTIONS.prompt;

export const MAX_RESOURCES_PER_GROUP = 500;
export const MAX_TEMPLATES_PER_GROUP = 100;
export const MAX_PROMPTS_PER_GROUP = 200;
export const MAX_PROMPT_ARGUMENTS = 32;
const MAX_URI = 2048;
const Text = (max: number) => z.string().max(max);

const Annotations = z.object({
  audience: z.array(z.enum(["user", "assistant"])).max(2).optional(),
  priority: z.number().min(0).max(1).optional(),
  lastModified: Text(64).optional(),
});

/** What a resource and a template alike are listed with. */
const Described = {
  name: Text(256),
  title: Text(256).optional(),
  description: Text(4096).optional(),
  mimeType: Text(256).optional(),
  annotations: Annotations.optional(),
};

/** A resource as its server listed it (what toolgate keeps of it: no _meta, no icons). */
export const OfferedResource = z.object({ uri: z.string().min(1).max(MAX_URI), ...Described, size: z.number().int().min(0).optional() });
export type OfferedResource = z.infer<typeof OfferedResource>;

export const OfferedTemplate = z.object({ uriTemplate: z.string().min(1).max(MAX_URI), ...Described });
export type OfferedTemplate = z.infer<typeof OfferedTemplate>;

export const PromptArgument = z.object({ name: z.string().min(1).max(128), title: Text(256).optional(), description: Text(1024).optional(), required: z.boolean().optional() });

/** A prompt as toolgate keeps it: `name` is toolgate's (the group's toolPrefix before the server's own, as for tools). */
export const OfferedPrompt = z.object({
  name: z.string().min(1).max(64),
  title: Text(256).optional(),
  description: Text(4096).optional(),
  arguments: z.array(PromptArgument).max(MAX_PROMPT_ARGUMENTS).optional(),
});
export type OfferedPrompt = z.infer<typeof OfferedPrompt>;

/**
 * What a group's MCP server offers besides tools, imported with them (at registration and on refresh): listing is a
 * read of the catalog, never a request to the server. Reading a resource and getting a prompt go to the server live.
 */
export const Offers = z.object({
  resources: z.array(OfferedResource).max(MAX_RESOURCES_PER_GROUP),
  resourceTemplates: z.array(OfferedTemplate).max(MAX_TEMPLATES_PER_GROUP),
  prompts: z.array(OfferedPrompt).max(MAX_PROMPTS_PER_GROUP),
});
export type Offers = z.infer<typeof Offers>;

/**
 * How the guard treats a group's resource reads and prompt gets, each kind counted on its own per agent and group:
 * rate limits, the doom loop (off unless set: reading the same resource again is ordinary) and the timeout.
 */
export const OfferPolicy = z.strictObject({
  rateLimit: z.strictObject({ perMinute: z.number().int().min(1).optional(), perHour: z.number().int().min(1).optional() }).optional(),
  repeatLimit: z.number().int().min(0).max(1000).optional(),
  timeoutMs: z.number().int().min(1).max(MAX_TOOL_TIMEOUT_MS).optional(),
});
export type OfferPolicy = z.infer<typeof OfferPolicy>;

/** One use of an offer through the guard: a resource read (by the URI the agent was shown) or a prompt got (by toolgate's name). */
export type OfferCall = { kind: "resource"; uri: string } | { kind: "prompt"; name: string; arguments: Record<string, string> };

/** GET /agents/:id/resources/read?uri= */
export const ReadQuery = z.strictObject({ uri: z.string().min(1).max(MAX_URI + 100) });

/** POST /agents/:id/prompts/:name */
export const PromptInput = z.strictObject({ arguments: z.record(z.string().max(128), z.string().max(64 * 1024)).default({}) });
