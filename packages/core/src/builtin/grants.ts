import { completeView, loadView } from "../access/index";
import { grantRefusal } from "../access/grant";
import type { Grant } from "../access/grant";
import * as Agent from "../agent/index";
import * as Role from "../role/index";
import type { NativeContext } from "./native";

/** Refuses (403 cannot_grant_groups) when the calling agent would hand out groups its own role does not have. */
export async function checkGrant({ db, catalog, roles, agentId }: NativeContext, grant: Grant) {
  const deps = { db, catalog, roles };
  const caller = await completeView(deps, await loadView(deps, await Agent.get(db, agentId), "fresh"));
  const refusal = grantRefusal(caller.access, grant);
  if (refusal) throw refusal;
}

/** Refuses spawning into a role whose groups the caller may not hand out; a role that does not exist is left to the spawn to refuse. */
export async function checkSpawnable(ctx: NativeContext, roleId: string) {
  const role = await Role.get(ctx.db, roleId).catch(() => undefined);
  if (role) await checkGrant(ctx, { kind: "spawn_agent", toolGroups: role.id === Role.ROOT_ROLE_ID ? [...Role.ROOT_TOOL_GROUPS] : role.toolGroups });
}
