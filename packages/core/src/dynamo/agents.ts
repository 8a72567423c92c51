import { GetCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { Agent } from "../agent/schema";
import { emptyGuardState } from "../guard/schema";
import { ROOT_ROLE_ID } from "../role/schema";
import type { Db } from "./client";
import { countInDepartment } from "./departments";
import { agentIndexes, agentsByStatus, agentsOfRole, Keys } from "./keys";
import { mergedPage } from "./merged-page";
import type { Source } from "./merged-page";
import type { Item } from "./query";
import { attempt } from "./write";

/**
 * An agent as stored, whether it counts among its role's active agents (the count DELETE /roles/:id checks), and
 * whether among its department's (the count GET /departments answers). Agents of the root role are never counted in
 * their role: that role cannot be deleted.
 */
export type StoredAgent = { agent: Agent; counted: boolean; inDepartment: boolean };

const countable = (agent: Agent) => agent.status === "active" && agent.roleId !== ROOT_ROLE_ID;

export const countableInDepartment = (agent: Agent) => agent.status === "active" && agent.department !== null;

const flags = (agent: Agent) => ({ ...(countable(agent) ? { counted: true } : {}), ...(countableInDepartment(agent) ? { inDepartment: true } : {}) });

export const agentItem = (agent: Agent) => ({ ...Keys.agent(agent.id), ...agentIndexes(agent), ...flags(agent), agent });

const storedAgent = (item: Item): StoredAgent => ({ agent: Agent.parse(item.agent), counted: item.counted === true, inDepartment: item.inDepartment === true });

/** How a count moves when an agent goes from counted (or not) to counted (or not). */
const countChange = (before: boolean, after: boolean): 1 | -1 | 0 => (before && !after ? -1 : !before && after ? 1 : 0);

/** The condition that a stored flag is as read. */
const flagAsRead = (name: string, set: boolean) => (set ? `${name} = :true` : `attribute_not_exists(${name})`);

export async function readAgent(db: Db, id: string): Promise<StoredAgent | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: Keys.agent(id), ConsistentRead: true }));
  return Item ? storedAgent(Item) : undefined;
}

export async function getAgent(db: Db, id: string): Promise<Agent | undefined> {
  return (await readAgent(db, id))?.agent;
}

/** The guard's copy of what decides whether the agent's token is good, written in the same transaction as the agent. */
const guardCopy = (db: Db, agent: Agent) => ({
  Update: {
    TableName: db.table,
    Key: Keys.guard(agent.id),
    UpdateExpression: "SET tokenVersion = :tokenVersion, active = :active, #state = if_not_exists(#state, :empty)",
    ExpressionAttributeNames: { "#state": "state" },
    ExpressionAttributeValues: { ":tokenVersion": agent.tokenVersion, ":active": agent.status === "active", ":empty": emptyGuardState() },
  },
});

/** Moves a role's count of active agents, in the same transaction as the agent's change. */
export const countInRole = (db: Db, roleId: string, by: 1 | -1) => ({
  Update: {
    TableName: db.table,
    Key: Keys.roleAgents(roleId),
    UpdateExpression: "ADD activeAgents :by",
    ExpressionAttributeValues: { ":by": by },
  },
});

/** The role is there (and so not being deleted: deleting it takes its count item in the same transaction). */
const roleExists = (db: Db, roleId: string) => ({
  ConditionCheck: { TableName: db.table, Key: Keys.role(roleId), ConditionExpression: "attribute_exists(pk)" },
});

/** Inserts an agent unless one with its id exists, counted in its role if that role still exists. */
export async function insertAgent(db: Db, agent: Agent): Promise<"ok" | "exists" | "role_not_found" | "contention"> {
  const counted = countable(agent);
  const department = countableInDepartment(agent) ? agent.department : null;
  const outcome = await attempt(() =>
    db.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: db.table, Item: agentItem(agent), ConditionExpression: "attribute_not_exists(pk)" } },
          guardCopy(db, agent),
          ...(department !== null ? [countInDepartment(db, department, 1)] : []),
          ...(counted ? [roleExists(db, agent.roleId), countInRole(db, agent.roleId, 1)] : []),
        ],
      }),
    ),
  );
  if (outcome.kind !== "refused") return outcome.kind;
  return outcome.failed[0] ? "exists" : "role_not_found";
}

export type AgentChange = { kind: "ok"; agent: Agent } | { kind: "moved"; current: StoredAgent | undefined } | { kind: "contention" };

/**
 * Replaces an agent read at `previous` (status, token version and where it is counted unchanged since), and the
 * guard's copy with it. Terminating a counted agent takes it off its role's and its department's counts; an active
 * agent not counted yet (stored before a count existed) is counted now.
 */
export async function replaceAgent(db: Db, previous: StoredAgent, next: Agent): Promise<AgentChange> {
  const inRole = countChange(previous.counted, countable(next));
  const inDepartment = countChange(previous.inDepartment, countableInDepartment(next));
  const outcome = await attempt(() =>
    db.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: db.table,
              Item: agentItem(next),
              ConditionExpression: `#agent.#status = :status AND #agent.tokenVersion = :tokenVersion AND ${flagAsRead("counted", previous.counted)} AND ${flagAsRead("inDepartment", previous.inDepartment)}`,
              ExpressionAttributeNames: { "#agent": "agent", "#status": "status" },
              ExpressionAttributeValues: {
                ":status": previous.agent.status,
                ":tokenVersion": previous.agent.tokenVersion,
                ...(previous.counted || previous.inDepartment ? { ":true": true } : {}),
              },
              ReturnValuesOnConditionCheckFailure: "ALL_OLD",
            },
          },
          guardCopy(db, next),
          ...(inRole === 0 ? [] : [countInRole(db, next.roleId, inRole)]),
          ...(inDepartment === 0 || next.department === null ? [] : [countInDepartment(db, next.department, inDepartment)]),
        ],
      }),
    ),
  );
  if (outcome.kind === "ok") return { kind: "ok", agent: next };
  if (outcome.kind === "contention") return outcome;
  const current = outcome.current[0];
  return { kind: "moved", current: current === undefined ? undefined : storedAgent(current) };
}

export type AgentFilter = { roleId?: string | undefined; status?: Agent["status"] | undefined };

const STATUSES: Agent["status"][] = ["active", "terminated"];

/** A page of agents, newest first, from the index of every agent by status or of a role's agents by status. */
export async function listAgents(db: Db, filter: AgentFilter, limit: number, cursor: string | undefined) {
  const statuses = filter.status ? [filter.status] : STATUSES;
  const sources: Source[] = statuses.map((status) =>
    filter.roleId === undefined ? { index: "gsi1", pk: agentsByStatus(status) } : { index: "gsi2", pk: agentsOfRole(filter.roleId, status) },
  );
  const page = await mergedPage(db, sources, "descending", limit, cursor);
  if (page === "invalid_cursor") return page;
  const agents = page.items.map((item) => Agent.parse(item.agent));
  return page.nextCursor ? { agents, nextCursor: page.nextCursor } : { agents };
}
