import type { Access } from "../access/index";
import { executorTimeoutMs, runsIn } from "../executor/types";
import { scopeOfGroup } from "../group/schema";
import { decideOffer, OFFER_ACTIONS } from "../offer/index";
import type { OfferCall } from "../offer/index";
import { policyIndex } from "../policy/applicable";
import { principalOf } from "../policy/principal";
import { policyError } from "../policy/errors";
import type { CallRequest } from "../call/schema";
import { policyDecision } from "./plan";
import type { Plan, Prepared } from "./plan";
import { refusal } from "./refusal";
import type { GuardSettings } from "./settings";

/** The call record's view of a use: a read is "resources/read" with the agent's URI, a prompt get is the prompt with its arguments. */
export const offerRequest = (offer: OfferCall): CallRequest =>
  offer.kind === "resource" ? { tool: OFFER_ACTIONS.resource, arguments: { uri: offer.uri } } : { tool: offer.name, arguments: offer.arguments };

type Refused = Extract<Plan, { kind: "refuse" }>;

const cannotWait = (name: string, policies: string[]) =>
  policyError("policy_denied", `"${name}" was refused: the policies ${policies.map((id) => `"${id}"`).join(", ")} ask for an operator's approval, and a resource read or prompt get cannot wait for one.`, {
    toolName: name,
    policies,
    recoverable: false,
  });

/**
 * Every check of a resource read or prompt get that needs no write, as prepare() does a tool's: decideOffer() (which
 * also decides what is listed), the prompt's required arguments, an executor, then the policies (Action
 * "resources/read" or "prompts/get" in the group's action group, `context.uri` or `context.prompt`, `context.input`).
 * Nothing waits for an approval: a policy that asks refuses it, as MCP gives a read no way to wait.
 */
export function prepareOffer(access: Access, offer: OfferCall, settings: Pick<GuardSettings, "defaultTimeoutMs">): Refused | Prepared {
  const decided = decideOffer(access, offer);
  if (!decided.allowed) return { kind: "refuse", error: decided.error, group: decided.group };
  const { group, policy } = decided;
  const { tool, arguments: args } = offerRequest(offer);
  const name = offer.kind === "resource" ? offer.uri : offer.name;
  if (decided.issues.length) return { kind: "refuse", error: refusal.invalidArguments(name, decided.issues), group: group.id };
  const executor = group.executor;
  // A read is answered now: an executor the agent's runtime stands for (one bound since the import) cannot serve it.
  if (!executor || runsIn(executor) !== "toolgate") return { kind: "refuse", error: refusal.noExecutor(name, group.id), group: group.id };
  const applicable = policyIndex(access.policies).applicable(OFFER_ACTIONS[offer.kind], group.id, principalOf(access.agent, access.role));
  const timeoutMs = policy.timeoutMs ?? executorTimeoutMs(executor) ?? settings.defaultTimeoutMs;
  return {
    kind: "prepared",
    args,
    policy,
    counter: decided.counter,
    asksPolicies: applicable.enforce.length > 0 || applicable.logOnly.length > 0,
    decide: async () => {
      const { decision, error } = await policyDecision(access, decided.definition, group.id, decided.input, applicable, { name, context: decided.context });
      if (error) return { kind: "refuse", error, group: group.id, ...(decision ? { decision } : {}) };
      if (decision.effect === "ask") return { kind: "refuse", error: cannotWait(name, decision.policies), group: group.id, decision };
      return { kind: "admit", tool, group: group.id, scope: scopeOfGroup(group), executor, args, policy, timeoutMs, decision, confirm: false };
    },
  };
}
