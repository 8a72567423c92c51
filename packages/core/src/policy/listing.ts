import type { Agent } from "../agent/schema";
import type { ToolgateError } from "../error";
import type { Role } from "../role/schema";
import { policyIndex } from "./applicable";
import { questioner } from "./cedar/question";
import { principalOf } from "./principal";
import { cedar } from "./cedar/wasm";
import type { CedarWasm } from "./cedar/wasm";
import { policyDenied, policyUnavailable } from "./refusals";
import type { StoredPolicy } from "./schema";

let engine: CedarWasm | undefined;

/** Loads Cedar before tools are listed or decided when some deny policy decides whether a tool is listed; nothing otherwise. */
export async function prepareListing(policies: ReadonlyMap<string, StoredPolicy>): Promise<void> {
  if (!engine && policyIndex(policies).deniesWithoutArguments) engine = await cedar();
}

const NO_ARGUMENTS = {};

/**
 * Why a deny policy that does not read arguments refuses this agent every call of the tool (then the tool is not
 * listed to it: visible means callable), or null. One that reads arguments denies only some calls, so the tool stays listed.
 */
export function deniedWhateverTheArguments(
  policies: ReadonlyMap<string, StoredPolicy>,
  agent: Pick<Agent, "id" | "department" | "level">,
  role: Pick<Role, "id" | "name">,
  tool: string,
  group: string,
): ToolgateError | null {
  const denials = policyIndex(policies).denialsWithoutArguments(tool, group, principalOf(agent, role));
  if (!denials.length) return null;
  if (!engine) return policyUnavailable(tool, "the policy engine is not loaded");
  try {
    const verdict = questioner(engine, { principal: principalOf(agent, role), tool, group }, denials).ask(NO_ARGUMENTS);
    if (verdict.effect !== "deny") return null;
    return policyDenied(tool, verdict.policies.flatMap((id) => policies.get(id) ?? []), undefined, null);
  } catch (error) {
    return policyUnavailable(tool, error instanceof Error ? error.message : String(error));
  }
}
