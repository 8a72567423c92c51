// Shared by infra/bus.ts, the local runner and core: keep this file free of imports.
export const TOOLGATE_EVENT_SOURCE = "toolgate";

export const ToolgateEventType = {
  AwaitingConfirmation: "call.awaiting_confirmation",
  QuestionAsked: "question.asked",
  CallSettled: "call.settled",
  AgentSpawned: "agent.spawned",
  AgentTerminated: "agent.terminated",
  RoleChanged: "role.changed",
  GroupChanged: "group.changed",
  PolicyChanged: "policy.changed",
  PolicyInvalidated: "policy.invalidated",
} as const;

export type ToolgateEventType = (typeof ToolgateEventType)[keyof typeof ToolgateEventType];

/**
 * Events published once per call. Each would cost about as much as the call's own storage, so they are published
 * only where something subscribes to them (TOOLGATE_CALL_EVENT_TYPES, derived from the rules at deploy and start).
 */
export const PER_CALL_EVENT_TYPES: readonly ToolgateEventType[] = [ToolgateEventType.AwaitingConfirmation, ToolgateEventType.QuestionAsked, ToolgateEventType.CallSettled];

/** Every event toolgate publishes about itself. */
export const TOOLGATE_EVENTS_PATTERN = {
  source: [TOOLGATE_EVENT_SOURCE],
  detailType: Object.values(ToolgateEventType),
};

/** Calls waiting for a person (an approval, an answer): what a chat notifier or a pager subscribes to. */
export const APPROVALS_PATTERN = {
  source: [TOOLGATE_EVENT_SOURCE],
  detailType: [ToolgateEventType.AwaitingConfirmation, ToolgateEventType.QuestionAsked],
};
