import type { Db } from "./client";
import { DEPARTMENT_SK_PREFIX, DEPARTMENTS_PK, Keys } from "./keys";
import { queryAll } from "./query";

/** Moves a department's count of active agents, in the same transaction as the agent's change. */
export const countInDepartment = (db: Db, department: string, by: 1 | -1) => ({
  Update: {
    TableName: db.table,
    Key: Keys.departmentAgents(department),
    UpdateExpression: "SET #name = :name ADD activeAgents :by",
    ExpressionAttributeNames: { "#name": "name" },
    ExpressionAttributeValues: { ":name": department, ":by": by },
  },
});

/** Every department an agent was ever counted in, with how many of its agents are active now (one Query of one partition). */
export async function readDepartmentCounts(db: Db): Promise<Map<string, number>> {
  const items = await queryAll(db, {
    KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
    ExpressionAttributeValues: { ":pk": DEPARTMENTS_PK, ":prefix": DEPARTMENT_SK_PREFIX },
    ConsistentRead: true,
  });
  return new Map(items.map((item) => [String(item.name), Number(item.activeAgents ?? 0)]));
}
