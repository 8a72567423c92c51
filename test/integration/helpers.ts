import { randomUUID } from "node:crypto";
import { ScanCommand } from "@aws-sdk/client-dynamodb";
import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { expect, inject } from "vitest";
import { Toolgate } from "@toolgate/core/toolgate";
import type { EventBridgeEvent } from "aws-lambda";
import { ADMIN_TOKEN, SIGNING_KEY } from "../support/toolgate";
import type { Api } from "../support/toolgate";

import { BUILTIN_TOOLS } from "../support/fixtures";

export { BUILTIN_TOOLS };

export const BUILTIN_IDS = Object.keys(BUILTIN_TOOLS);

let counter = 0;
/** A name unique within the run, valid as a group id, tool name, module name or role name. */
export const unique = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(counter++).toString(36)}${randomUUID().slice(0, 4)}`;

/** Another process ("a second Lambda") on the same table, started cold. */
export async function secondInstance(toolgate: Toolgate): Promise<Toolgate> {
  const other = new Toolgate({ table: toolgate.db.table, endpoint: inject("dynamoEndpoint"), adminToken: ADMIN_TOKEN, signingKey: SIGNING_KEY });
  await other.ready();
  return other;
}

export async function createRole(request: Api, body: Record<string, unknown>) {
  const response = await request("POST", "/roles", { body: { rolePrompt: "Do the work.", ...body } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: string; name: string; version: number; toolGroups: string[] | null; effectiveToolGroups: string[]; questions: "user" | "operator" };
}

export async function createAgent(request: Api, roleId: string, extra: Record<string, unknown> = {}) {
  const response = await request("POST", "/agents", { body: { roleId, ...extra } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { agent: { id: string; roleId: string; status: string; name: string }; token: string };
}

/** A fresh role naming the given groups, and one agent bound to it. */
export async function agentWithGroups(request: Api, toolGroups: string[] | null) {
  const role = await createRole(request, { name: unique("role"), toolGroups });
  const { agent, token } = await createAgent(request, role.id);
  return { role, agent, token };
}

export async function putGroup(request: Api, id: string, body: Record<string, unknown>) {
  const response = await request("PUT", `/groups/${id}`, { body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

/** An EventBridge envelope as the bus delivers it to the modules function. */
export function moduleEvent(
  detailType: "module.loaded" | "module.unloaded" | string,
  detail: Record<string, unknown>,
  id: string = randomUUID(),
): EventBridgeEvent<string, unknown> {
  return {
    version: "0",
    id,
    source: "toolgate.modules",
    "detail-type": detailType,
    account: "000000000000",
    time: new Date().toISOString(),
    region: "us-east-1",
    resources: [],
    detail,
  };
}

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Polls until the check passes or the time is up; returns the last value. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await sleep(25);
  }
}

/** Every string in every item of a test's table (a Scan, paged), for looking for what must not be stored. */
export async function storedText(toolgate: Toolgate): Promise<string> {
  const items: Record<string, AttributeValue>[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await toolgate.db.client.send(new ScanCommand({ TableName: toolgate.db.table, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return JSON.stringify(items);
}
