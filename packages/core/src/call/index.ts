import { invalidCursor } from "../error";
import { getItems, itemAt } from "../dynamo/batch";
import { getCall, listAwaitingCalls, listCalls } from "../dynamo/calls";
import type { QueueStatus } from "../dynamo/calls";
import type { CallFilter } from "../dynamo/calls";
import type { Db } from "../dynamo/client";
import { Keys } from "../dynamo/keys";
import { callNotFound } from "./errors";
import type { CallKind, CallRecord, QueuedCall } from "./schema";

export { ApprovalQueueQuery, CallHistoryQuery, CallKind, CallRecord, CallRequest, CallStatus, ClientResult, MAX_PAGE, PageQuery, QueuedCall } from "./schema";
export { PENDING_STATUSES, transitions } from "./lifecycle";
export { cancelWaitingCalls } from "./cancel";
export { CALL_ERRORS, callError, callNotFound } from "./errors";

/** A record as answers show it: what it used named, a record stored without `kind` (every tool's call) as a tool's. */
export const shown = (record: CallRecord): Omit<CallRecord, "kind"> & { kind: CallKind } => ({ ...record, kind: record.kind ?? "tool" });

export async function history(db: Db, agentId: string, filter: CallFilter, limit: number, cursor: string | undefined) {
  const page = await listCalls(db, agentId, filter, limit, cursor);
  if (page === "invalid_cursor") throw invalidCursor();
  return { ...page, calls: page.calls.map(shown) };
}

export async function get(db: Db, agentId: string, callId: string): Promise<CallRecord> {
  const record = await getCall(db, agentId, callId);
  if (!record) throw callNotFound(agentId, callId);
  return record;
}

const nameIn = (item: Record<string, unknown> | undefined, field: "agent" | "role") => {
  const name = (item?.[field] as { name?: unknown } | undefined)?.name;
  return typeof name === "string" ? name : null;
};

const isActiveAgent = (item: Record<string, unknown> | undefined) => (item?.agent as { status?: unknown } | undefined)?.status === "active";

/**
 * An operator's queue: calls awaiting an approval (awaiting_confirmation) or questions awaiting an answer
 * (awaiting_answer) across every agent, oldest first, with their agent's and role's names. A call whose agent is no
 * longer active can never run, so it is left out, even while its termination is still ending it: the agents are read
 * after the calls.
 */
export async function awaitingOperator(db: Db, status: QueueStatus, limit: number, cursor: string | undefined): Promise<{ calls: QueuedCall[]; nextCursor?: string }> {
  const page = await listAwaitingCalls(db, status, limit, cursor);
  if (page === "invalid_cursor") throw invalidCursor();
  const agentIds = [...new Set(page.calls.map((call) => call.agentId))];
  const roleIds = [...new Set(page.calls.map((call) => call.roleId))];
  const items = await getItems(db, [...agentIds.map(Keys.agent), ...roleIds.map(Keys.role)]);
  const calls = page.calls.filter((call) => isActiveAgent(itemAt(items, Keys.agent(call.agentId)))).map((call) => ({
    ...call,
    agentName: nameIn(itemAt(items, Keys.agent(call.agentId)), "agent"),
    roleName: nameIn(itemAt(items, Keys.role(call.roleId)), "role"),
  }));
  return page.nextCursor ? { calls, nextCursor: page.nextCursor } : { calls };
}
