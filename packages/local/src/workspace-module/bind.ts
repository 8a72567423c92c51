import { SERVED_GROUPS } from "./builtin";

type Executor = { type: string; url?: string };
export type Bound = { group: string; previous: Executor | null };
export type Admin = { toolgateUrl: string; adminToken: string };

async function send(admin: Admin, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(new URL(path, admin.toolgateUrl), {
    method,
    headers: { authorization: `Bearer ${admin.adminToken}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) throw new Error(`toolgate answered ${method} ${path} with HTTP ${response.status}: ${String(answer.message ?? response.statusText)}`);
  return answer;
}

/** The request an admin sends to make `url` the executor of one group (docs/api.md, PUT /groups/:id/executor). */
export const bindingRequest = (group: string, url: string) => ({ method: "PUT", path: `/groups/${group}/executor`, body: { type: "http", url } });

/** Binds the module at `url` as the executor of the workspace and command groups; answers what each group had before. */
export async function bindGroups(admin: Admin, url: string): Promise<Bound[]> {
  const bound: Bound[] = [];
  for (const group of SERVED_GROUPS) {
    const before = await send(admin, "GET", `/groups/${group}`);
    const { method, path, body } = bindingRequest(group, url);
    await send(admin, method, path, body);
    bound.push({ group, previous: (before.executor as Executor | null | undefined) ?? null });
  }
  return bound;
}

/**
 * Gives each group back the executor it had, where that can be said again: the agent's runtime (`client`, the
 * default). An http or MCP executor is shown without its headers, so it is left for the admin to bind again.
 */
export async function unbindGroups(admin: Admin, bound: Bound[]): Promise<string[]> {
  const notes: string[] = [];
  for (const { group, previous } of bound) {
    if (previous?.type === "client") await send(admin, "PUT", `/groups/${group}/executor`, { type: "client" });
    else notes.push(`${group} still names this module as its executor (it had ${previous ? `${previous.type} ${previous.url ?? ""}`.trim() : "none"} before): bind it again with PUT /groups/${group}/executor.`);
  }
  return notes;
}
