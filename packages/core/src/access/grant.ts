import type { ToolgateError } from "../error";
import { ROOT_AGENT_ID } from "../agent/schema";
import { usesAllGroups } from "../role/schema";
import { accessError } from "./errors";
import type { Access } from "./index";

export type Grant = { kind: "create_role" | "spawn_agent"; toolGroups: string[] | null };

const listed = (groups: readonly string[]) => (groups.length ? groups.join(", ") : "none");

const refuse = (message: string, groups: string[], grantable: string[]) =>
  accessError("cannot_grant_groups", message, { groups, grantable, recoverable: true });

/**
 * Whether an agent may hand these tool groups to a role (creating it, or spawning an agent into it).
 * Only the root agent grants freely; any other agent grants only groups its own role has, and names them:
 * a role with no groups named gets every group, including ones registered later.
 */
export function grantRefusal(caller: Access, grant: Grant): ToolgateError | null {
  if (caller.agent.id === ROOT_AGENT_ID) return null;
  const own = caller.groups;
  const callerHasAll = usesAllGroups(caller.role);
  if (grant.toolGroups === null || grant.toolGroups.length === 0) {
    if (grant.kind === "spawn_agent" && callerHasAll) return null;
    const beyond = caller.manager.getAllGroupIds().filter((groupId) => !own.includes(groupId));
    return refuse(
      grant.kind === "create_role"
        ? `An agent may create a role only with an explicit list of tool groups its own role has; leaving toolGroups out would grant every tool group, including ones registered later. Name the groups the role needs, from: ${listed(own)}.`
        : `The role names no tool groups, so its agents get every tool group, including ones registered later; your role "${caller.role.name}" does not have ${beyond.length ? listed(beyond) : "all of them"}. Spawn agents only into roles whose groups your role has: ${listed(own)}.`,
      beyond,
      own,
    );
  }
  const missing = grant.toolGroups.filter((groupId) => !own.includes(groupId));
  if (!missing.length) return null;
  return refuse(
    `An agent may only grant tool groups its own role has, and your role "${caller.role.name}" does not have ${listed(missing)}. Use only groups from: ${listed(own)}.`,
    missing,
    own,
  );
}
