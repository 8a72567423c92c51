import type { Access, Decision } from "../access/index";
import { accessError } from "../access/errors";
import type { Group } from "../group/schema";
import { scopeOfGroup } from "../group/schema";
import { deniedWhateverTheArguments } from "../policy/listing";
import type { EffectivePolicy } from "../policy/rules";
import { narrowness } from "../scope/schema";
import type { ToolDefinition } from "../tool/schema";
import type { Issue } from "../validation";
import { OFFER_ACTIONS } from "./schema";
import type { OfferCall, OfferedPrompt, OfferedResource, OfferedTemplate, OfferKind } from "./schema";
import { agentUri, expandsTo, upstreamOf } from "./uri";

export * from "./schema";
export { agentUri, expandsTo, upstreamOf } from "./uri";

/** A resource or template as an agent is shown it: under its agent URI (`toolgate://<group>/<the server's URI>`). */
export type AgentResource = OfferedResource & { group: string };
export type AgentTemplate = OfferedTemplate & { group: string };
export type AgentPrompt = OfferedPrompt & { group: string };

export type ListedOffers = { resources: AgentResource[]; resourceTemplates: AgentTemplate[]; prompts: AgentPrompt[] };

/**
 * The groups whose offers of a kind the agent may use, narrowest scope first: in its reach, offering something, and not
 * refused every use by a deny policy that reads no argument (as a tool is: visible means usable).
 */
function offeringGroups(access: Access, kind: OfferKind): Group[] {
  const groups = access.groups.flatMap((id) => {
    const group = access.manager.getGroup(id);
    if (!group?.offers) return [];
    const offered = kind === "resource" ? group.offers.resources.length + group.offers.resourceTemplates.length : group.offers.prompts.length;
    return offered > 0 && !deniedWhateverTheArguments(access.policies, access.agent, access.role, OFFER_ACTIONS[kind], id) ? [group] : [];
  });
  return groups.sort((a, b) => narrowness(scopeOfGroup(b)) - narrowness(scopeOfGroup(a)) || a.id.localeCompare(b.id));
}

const listings = new WeakMap<Access, ListedOffers>();

/**
 * What the agent may read and get: every resource and template of its offering groups under their agent URIs, and their
 * prompts by toolgate's name (the narrowest group's when two groups name a prompt alike). One function lists and decides.
 */
export function listedOffers(access: Access): ListedOffers {
  const known = listings.get(access);
  if (known) return known;
  const readable = offeringGroups(access, "resource");
  const prompts = new Map<string, AgentPrompt>();
  for (const group of offeringGroups(access, "prompt")) for (const prompt of group.offers!.prompts) if (!prompts.has(prompt.name)) prompts.set(prompt.name, { ...prompt, group: group.id });
  const listed: ListedOffers = {
    resources: readable.flatMap((group) => group.offers!.resources.map((resource) => ({ ...resource, uri: agentUri(group.id, resource.uri), group: group.id }))),
    resourceTemplates: readable.flatMap((group) => group.offers!.resourceTemplates.map((template) => ({ ...template, uriTemplate: agentUri(group.id, template.uriTemplate), group: group.id }))),
    prompts: [...prompts.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
  };
  listings.set(access, listed);
  return listed;
}

/** What the guard needs of an allowed use: its group, what the server knows it by, and how Cedar and the counters see it. */
export type OfferDecision =
  | {
      allowed: true;
      group: Group;
      /** The server's own URI, or the prompt's own name. */
      upstream: string;
      /** How Cedar types the use: the action's arguments (`context.input`), never listed to anyone. */
      definition: ToolDefinition;
      /** What Cedar reads as `context.input`, and the use's own attributes (`context.uri`, `context.prompt`). */
      input: Record<string, unknown>;
      context: Record<string, string>;
      policy: EffectivePolicy;
      /** The counter its rate limits and doom loop count under: per kind and group. */
      counter: string;
      issues: Issue[];
    }
  | Extract<Decision, { allowed: false }>;

const notAvailable = (access: Access, what: string, name: string) =>
  accessError(
    "tool_not_available",
    `The ${what} "${name}" is not available to the role "${access.role.name}": it is not one its tool groups offer. List what it may use with ${what === "resource" ? "resources/list (GET /agents/:id/resources)" : "prompts/list (GET /agents/:id/prompts)"}.`,
    { toolName: name, recoverable: false },
  );

/** A URI not to be read: not offered to the agent, or, bare, offered by more than one of its groups (each to be named). */
function notReadable(access: Access, uri: string) {
  const offering = upstreamOf(uri) ? [] : offeringGroups(access, "resource").filter((group) => offersUri(group, uri));
  if (offering.length < 2) return notAvailable(access, "resource", uri);
  return accessError("ambiguous_resource", `More than one of your tool groups offers "${uri}": read it as ${offering.map((group) => `"${agentUri(group.id, uri)}"`).join(" or ")}.`, {
    toolName: uri,
    recoverable: true,
  });
}

const READ_DEFINITION: ToolDefinition = {
  type: "function",
  function: { name: OFFER_ACTIONS.resource, description: "Read a resource.", parameters: { type: "object", properties: { uri: { type: "string" } }, required: ["uri"] } },
};

const promptDefinition = (prompt: OfferedPrompt): ToolDefinition => ({
  type: "function",
  function: {
    name: OFFER_ACTIONS.prompt,
    description: "Get a prompt.",
    parameters: { type: "object", properties: Object.fromEntries((prompt.arguments ?? []).map((argument) => [argument.name, { type: "string" }])) },
  },
});

const policyOf = (group: Group): EffectivePolicy => ({ ...group.offerPolicy, repeatLimit: group.offerPolicy?.repeatLimit ?? 0, disabled: false });

const offersUri = (group: Group, upstream: string) =>
  group.offers!.resources.some((resource) => resource.uri === upstream) || group.offers!.resourceTemplates.some((template) => expandsTo(template.uriTemplate, upstream));

/**
 * The group a URI is read from: the one its agent URI names, or, for a server's own URI as a client may know it (a
 * bare `test://static-text`), the one group of the agent's that offers it. Offered by several, a bare URI names none.
 */
function readable(access: Access, uri: string): { group: Group; upstream: string } | undefined {
  const groups = offeringGroups(access, "resource");
  const named = upstreamOf(uri);
  if (named) {
    const group = groups.find((candidate) => candidate.id === named.groupId);
    return group && offersUri(group, named.upstream) ? { group, upstream: named.upstream } : undefined;
  }
  const offering = groups.filter((group) => offersUri(group, uri));
  return offering.length === 1 ? { group: offering[0]!, upstream: uri } : undefined;
}

/** A prompt the agent may get (as listed), by toolgate's name, with the group that offers it. */
function offeredPrompt(access: Access, name: string): { prompt: AgentPrompt; group: Group } | undefined {
  const prompt = listedOffers(access).prompts.find((candidate) => candidate.name === name);
  const group = prompt && access.manager.getGroup(prompt.group);
  return prompt && group ? { prompt, group } : undefined;
}

/** A prompt's arguments against what it declares: each required one given. */
const missingArguments = (prompt: OfferedPrompt, given: Record<string, string>): Issue[] =>
  (prompt.arguments ?? []).filter((argument) => argument.required && given[argument.name] === undefined).map((argument) => ({ path: argument.name, message: "is required" }));

/** The one decision about a use of an offer, behind listing and the guard alike: a URI or prompt the agent could not have listed is not available. */
export function decideOffer(access: Access, call: OfferCall): OfferDecision {
  if (call.kind === "resource") {
    const found = readable(access, call.uri);
    if (!found) return { allowed: false, error: notReadable(access, call.uri), group: upstreamOf(call.uri)?.groupId ?? null };
    const { group, upstream } = found;
    return { allowed: true, group, upstream, definition: READ_DEFINITION, input: { uri: upstream }, context: { uri: upstream }, policy: policyOf(group), counter: `${OFFER_ACTIONS.resource}@${group.id}`, issues: [] };
  }
  const offered = offeredPrompt(access, call.name);
  if (!offered) return { allowed: false, error: notAvailable(access, "prompt", call.name), group: null };
  const { prompt, group } = offered;
  return {
    allowed: true,
    group,
    upstream: call.name,
    definition: promptDefinition(prompt),
    input: call.arguments,
    context: { prompt: call.name },
    policy: policyOf(group),
    counter: `${OFFER_ACTIONS.prompt}@${group.id}`,
    issues: missingArguments(prompt, call.arguments),
  };
}

/** Where a completion of a prompt's or a template's argument goes: the group offering it, if the agent may use it. */
export function completionTarget(access: Access, ref: { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string }) {
  if (ref.type === "ref/prompt") {
    const group = offeredPrompt(access, ref.name)?.group;
    return group ? { group, error: undefined } : { group: undefined, error: notAvailable(access, "prompt", ref.name) };
  }
  const template = listedOffers(access).resourceTemplates.find((candidate) => candidate.uriTemplate === ref.uri);
  const group = template && access.manager.getGroup(template.group);
  return group ? { group, upstreamUri: upstreamOf(ref.uri)!.upstream, error: undefined } : { group: undefined, error: notAvailable(access, "resource", ref.uri) };
}
