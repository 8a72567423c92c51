import { badRequest, notFound } from "../error";
import { getCall, listCalls } from "../dynamo/calls";
import type { Db } from "../dynamo/client";
import type { CallRecord } from "./schema";

export { CallRecord, CallRequest, CallStatus, ClientResult, MAX_PAGE, PageQuery } from "./schema";
export { PENDING_STATUSES, transitions } from "./lifecycle";

export const invalidCursor = () => badRequest("invalid_cursor", "The cursor is not one this list handed out; start again without it.");

export async function history(db: Db, agentId: string, limit: number, cursor: string | undefined) {
  const page = await listCalls(db, agentId, limit, cursor);
  if (page === "invalid_cursor") throw invalidCursor();
  return page;
}

export async function get(db: Db, agentId: string, callId: string): Promise<CallRecord> {
  const record = await getCall(db, agentId, callId);
  if (!record) throw notFound("call_not_found", `Agent "${agentId}" has no call "${callId}".`);
  return record;
}
