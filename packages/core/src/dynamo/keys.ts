export const CATALOG_PK = "CATALOG";
export const CATALOG_VERSION_SK = "VERSION";
export const GROUP_SK_PREFIX = "GROUP#";
export const POLICY_SK_PREFIX = "POLICY#";
/** Cedar policies about calls and their arguments, in the catalog beside the groups they name. */
export const CEDAR_SK_PREFIX = "CEDAR#";
/** A department's or an agent's group, stored again beside the other groups of its scope (read by one Query per scope). */
export const SCOPED_SK_PREFIX = "SCOPED#";
/** Every department's count of active agents, in one partition (GET /departments reads it with one Query). */
export const DEPARTMENTS_PK = "DEPARTMENTS";
export const DEPARTMENT_SK_PREFIX = "DEPARTMENT#";

export const Keys = {
  catalogVersion: () => ({ pk: CATALOG_PK, sk: CATALOG_VERSION_SK }),
  group: (id: string) => ({ pk: CATALOG_PK, sk: `${GROUP_SK_PREFIX}${id}` }),
  scopedGroup: (scope: string, id: string) => ({ pk: CATALOG_PK, sk: `${SCOPED_SK_PREFIX}${scope}#${id}` }),
  policy: (toolName: string) => ({ pk: CATALOG_PK, sk: `${POLICY_SK_PREFIX}${toolName}` }),
  cedarPolicy: (id: string) => ({ pk: CATALOG_PK, sk: `${CEDAR_SK_PREFIX}${id}` }),
  /** Present once the shipped policies were written (deleting one of them does not bring it back). */
  shippedPolicies: () => ({ pk: CATALOG_PK, sk: "SHIPPED#policies" }),
  guard: (agentId: string) => ({ pk: `AGENT#${agentId}`, sk: "GUARD" }),
  message: (agentId: string, messageId: string) => ({ pk: `AGENT#${agentId}`, sk: `MSG#${messageId}` }),
  callRef: (callId: string) => ({ pk: `CALLREF#${callId}`, sk: "CALLREF" }),
  artifact: (id: string) => ({ pk: `ARTIFACT#${id}`, sk: "ARTIFACT" }),
  module: (name: string) => ({ pk: `MODULE#${name}`, sk: "MODULE" }),
  event: (id: string) => ({ pk: `EVENT#${id}`, sk: "EVENT" }),
  role: (id: string) => ({ pk: `ROLE#${id}`, sk: "ROLE" }),
  /** How many active agents are bound to a role, kept in the transactions that create and terminate them. */
  roleAgents: (id: string) => ({ pk: `ROLE#${id}`, sk: "AGENTS" }),
  /** How many active agents carry a department's name, kept in the transactions that create and terminate them. */
  departmentAgents: (name: string) => ({ pk: DEPARTMENTS_PK, sk: `${DEPARTMENT_SK_PREFIX}${name}` }),
  /** Present once every active agent stored before departments were counted is counted in its department. */
  departmentsBackfilled: () => ({ pk: "MIGRATION#departments", sk: "MIGRATION" }),
  /** Present once every agent and call stored before the listing indexes existed carries their attributes. */
  indexesBackfilled: () => ({ pk: "MIGRATION#listing-indexes", sk: "MIGRATION" }),
  roleName: (name: string) => ({ pk: `ROLENAME#${name.toLowerCase()}`, sk: "ROLENAME" }),
  agent: (id: string) => ({ pk: `AGENT#${id}`, sk: "AGENT" }),
  answerToken: (id: string) => ({ pk: `ANSWERTOKEN#${id}`, sk: "ANSWERTOKEN" }),
  call: (agentId: string, callId: string) => ({ pk: `AGENT#${agentId}`, sk: `CALL#${callId}` }),
  /** One 2025-era MCP client of the agent, under the session id toolgate gave it: the log level it set (what it declared travels in the id). */
  mcpClient: (agentId: string, sessionId: string) => ({ pk: `AGENT#${agentId}`, sk: `MCPCLIENT#${sessionId}` }),
  /** The agent's client's answer to a request toolgate sent it on a call's response stream, until the waiting call reads it. */
  clientReply: (agentId: string, requestId: string) => ({ pk: `AGENT#${agentId}`, sk: `REPLY#${requestId}` }),
  /** Up to when cleanup has looked at every call admitted straight to running or to its runtime (the agents walk). */
  admittedWalk: () => ({ pk: "CLEANUP", sk: "ADMITTED" }),
};

export const Index = {
  modules: { gsi1pk: "MODULES" },
  roles: { gsi1pk: "ROLES" },
  /** Every answering token, newest first (gsi1sk: createdAt#id): tokens are few and made by hand, so one partition. */
  answerTokens: { gsi1pk: "ANSWERTOKENS" },
};

const RUNNING_SHARDS = 4;
export const RUNNING_PREFIX = "RUNNING#";
/** Calls awaiting an admin's answer: the same sparse deadline index as other waiting calls, under their own shards (the approval queue). */
export const AWAITING_PREFIX = "AWAITING#";
/** Questions awaiting a person's answer (ask_user): the questions queue, in shards of their own. */
export const QUESTIONS_PREFIX = "QUESTIONS#";

export const shardsOf = (prefix: string) => Array.from({ length: RUNNING_SHARDS }, (_, shard) => `${prefix}${shard}`);

function shardFor(key: string) {
  let hash = 0;
  for (let i = 0; i < key.length; i++) hash = (hash * 31 + key.charCodeAt(i)) >>> 0;
  return hash % RUNNING_SHARDS;
}

const sortableEpoch = (epochSeconds: number) => String(Math.floor(epochSeconds)).padStart(12, "0");

/**
 * A sparse index entry for a call that waits on something until a deadline, so cleanup finds lapsed calls with a
 * Query (by the deadline's second, rounded up: never before it). Only waiting calls are indexed: a settled call leaves
 * the index (expiry is TTL's job, or the local sweep's). Within a second, entries sort by the deadline's millisecond
 * and then the call's time-ordered id, so the approval queue is oldest first to the call.
 */
export const runningIndex = (pk: string, deadline: string, callId: string, prefix = RUNNING_PREFIX) => {
  const ms = Date.parse(deadline);
  return { gsi1pk: shardOf(pk, prefix), gsi1sk: `${sortableEpoch(Math.ceil(ms / 1000))}#${String(ms).padStart(15, "0")}#${callId}` };
};

/** The shard of the waiting-call index under `prefix` that every waiting call of a partition (an agent's calls) is in. */
export const shardOf = (pk: string, prefix: string) => `${prefix}${shardFor(pk)}`;

export const indexUpTo = (epochSeconds: number) => `${sortableEpoch(epochSeconds)}#~`;

/**
 * Agents newest first: every agent by status (gsi1), and a role's agents by status (gsi2). One partition per status
 * is not sharded: agents are created and terminated far below a partition's ~1,000 writes a second.
 */
export const agentIndexes = (agent: { id: string; roleId: string; status: string; createdAt: string }) => {
  const sk = `${agent.createdAt}#${agent.id}`;
  return { gsi1pk: agentsByStatus(agent.status), gsi1sk: sk, gsi2pk: agentsOfRole(agent.roleId, agent.status), gsi2sk: sk };
};
export const agentsByStatus = (status: string) => `AGENTS#${status}`;
export const agentsOfRole = (roleId: string, status: string) => `ROLEAGENTS#${roleId}#${status}`;


export const ADMITTED_PREFIX = "ADMITTED#";
const HOUR_MS = 3_600_000;
const hourOf = (epochMs: number) => Math.floor(epochMs / HOUR_MS) * HOUR_MS;

/**
 * An agent's guard record, indexed (gsi3, keys only) under the hour of its latest admitted call: the key changes once
 * an hour at most, so admissions pay no index write, and cleanup finds every agent with calls admitted since a time.
 */
export const admittedIndex = (agentId: string, admittedAtMs: number) => ({
  gsi3pk: `${ADMITTED_PREFIX}${shardFor(`AGENT#${agentId}`)}`,
  gsi3sk: `${sortableEpoch(hourOf(admittedAtMs) / 1000)}#${agentId}`,
});

/** The first gsi3 key of the hour holding `epochMs`: agents whose latest admission is at or after it sort from here. */
export const admittedSince = (epochMs: number) => `${sortableEpoch(hourOf(epochMs) / 1000)}#`;

export const agentOfAdmitted = (gsi3sk: string) => gsi3sk.slice(gsi3sk.indexOf("#") + 1);
