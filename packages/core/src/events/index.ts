import type { Agent } from "../agent/schema";
import type { CallRecord } from "../call/schema";
import type { Role } from "../role/schema";
import type { Question } from "../question/schema";
import { callChanges } from "../dynamo/stream";
import type { CallChange, StreamRecord } from "../dynamo/stream";
import { linkedBus } from "../environment";
import { BusPublisher } from "./publisher";
import type { EventPublisher } from "./publisher";
import { SettledStatus } from "./schema";
import type { GroupChanged, PolicyChanged, PolicyInvalidated, RoleChanged, ToolgateEvent } from "./schema";
import { ToolgateEventType } from "./types";

export * from "./schema";
export * from "./types";
export { BusPublisher, noEvents, RecordingPublisher } from "./publisher";
export type { BusTarget, EventPublisher } from "./publisher";
export type { StreamRecord } from "../dynamo/stream";

/**
 * Publishes call.settled for the calls a batch of the table's stream records settled. Calls are announced from the
 * stream, after their write commits, so no guarded call waits on the bus.
 */
export const publishCallEvents = (publisher: EventPublisher, records: readonly StreamRecord[]) =>
  publisher.publish(...callSettledEvents(callChanges(records)));

let linked: EventPublisher | undefined;
/** The bus SST links to this function, with nothing else of toolgate loaded. */
export const linkedPublisher = (): EventPublisher => (linked ??= new BusPublisher(linkedBus()));

/** call.awaiting_confirmation for a call record just written as waiting; undefined for any other status. */
export function awaitingConfirmation(record: CallRecord): ToolgateEvent | undefined {
  if (record.status !== "awaiting_confirmation" || !record.deadline) return undefined;
  const { callId, agentId, roleId, tool, group, startedAt, deadline } = record;
  return {
    type: ToolgateEventType.AwaitingConfirmation,
    detail: { callId, agentId, roleId, tool, group, startedAt, deadline, approve: `/calls/${callId}/approve`, deny: `/calls/${callId}/deny` },
  };
}

/** question.asked for an ask_user call just written as awaiting an answer, with its question and options as asked. */
export function questionAsked(record: CallRecord, asked: Question): ToolgateEvent | undefined {
  if (record.status !== "awaiting_answer" || !record.deadline) return undefined;
  const { callId, agentId, roleId, startedAt, deadline } = record;
  const choices = "form" in asked ? { multiple: false, form: asked.form, askedFor: asked.askedFor } : { ...(asked.options ? { options: asked.options } : {}), multiple: asked.multiple };
  return { type: ToolgateEventType.QuestionAsked, detail: { callId, agentId, roleId, question: asked.question, ...choices, startedAt, deadline, answer: `/calls/${callId}/answer` } };
}

/** call.settled for every call a committed write moved into a settled status (from the table's stream, so after commit). */
export const callSettledEvents = (changes: readonly CallChange[]): ToolgateEvent[] =>
  changes.flatMap(({ before, after }) => {
    const event = after && before?.status !== after.status ? callSettled(after) : undefined;
    return event ? [event] : [];
  });

/** call.settled for a call record in an end status; undefined while it still waits. */
export function callSettled(record: CallRecord): ToolgateEvent | undefined {
  const status = SettledStatus.safeParse(record.status);
  if (!status.success) return undefined;
  const { callId, agentId, roleId, tool, group, startedAt, answeredBy, answeredByName } = record;
  const finishedAt = record.finishedAt ?? new Date().toISOString();
  const durationMs = record.durationMs ?? Math.max(0, Date.parse(finishedAt) - Date.parse(startedAt));
  return {
    type: ToolgateEventType.CallSettled,
    detail: {
      callId,
      agentId,
      roleId,
      tool,
      group,
      status: status.data,
      ...(record.error ? { errorCode: record.error.code } : {}),
      ...(answeredBy ? { answeredBy } : {}),
      ...(answeredByName ? { answeredByName } : {}),
      startedAt,
      finishedAt,
      durationMs,
    },
  };
}

export const agentSpawned = (agent: Agent, task?: { task: string; messageId: string }): ToolgateEvent => ({
  type: ToolgateEventType.AgentSpawned,
  detail: { agentId: agent.id, roleId: agent.roleId, name: agent.name, createdBy: agent.createdBy, createdAt: agent.createdAt, ...(task ?? {}) },
});

export const agentTerminated = (agent: Agent): ToolgateEvent => ({
  type: ToolgateEventType.AgentTerminated,
  detail: { agentId: agent.id, roleId: agent.roleId, name: agent.name, terminatedAt: agent.terminatedAt ?? new Date().toISOString() },
});

export const roleChanged = (role: Pick<Role, "id" | "name" | "version" | "toolGroups">, change: RoleChanged["change"], at: string): ToolgateEvent => ({
  type: ToolgateEventType.RoleChanged,
  detail: { roleId: role.id, name: role.name, change, version: role.version, toolGroups: role.toolGroups, at },
});

export const groupChanged = (detail: GroupChanged): ToolgateEvent => ({ type: ToolgateEventType.GroupChanged, detail });

export const policyChanged = (detail: PolicyChanged): ToolgateEvent => ({ type: ToolgateEventType.PolicyChanged, detail });

export const policyInvalidated = (detail: PolicyInvalidated): ToolgateEvent => ({ type: ToolgateEventType.PolicyInvalidated, detail });
