// Shared by infra/bus.ts, the local runner and core: keep this file free of imports.
export const TOOLGATE_EVENT_SOURCE = "toolgate";

export const ToolgateEventType = {
  AwaitingConfirmation: "call.awaiting_confirmation",
  CallSettled: "call.settled",
  AgentSpawned: "agent.spawned",
  AgentTerminated: "agent.terminated",
  RoleChanged: "role.changed",
  GroupChanged: "group.changed",
} as const;

export type ToolgateEventType = (typeof ToolgateEventType)[keyof typeof ToolgateEventType];

/** Every event toolgate publishes about itself. */
export const TOOLGATE_EVENTS_PATTERN = {
  source: [TOOLGATE_EVENT_SOURCE],
  detailType: Object.values(ToolgateEventType),
};

/** Calls waiting for a person: what a chat notifier or a pager subscribes to. */
export const APPROVALS_PATTERN = {
  source: [TOOLGATE_EVENT_SOURCE],
  detailType: [ToolgateEventType.AwaitingConfirmation],
};
