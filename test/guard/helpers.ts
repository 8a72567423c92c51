import { expect } from "vitest";
import type { Toolgate } from "@toolgate/core/toolgate";
import type { ToolgateOptions } from "@toolgate/core/toolgate";
import { api, testToolgate, tool } from "../support/toolgate";
import type { Api, ApiResponse } from "../support/toolgate";
import { startExecutor } from "../support/executor";
import type { Executor } from "../support/executor";
import { createAgent, createRole, putGroup, unique } from "../integration/helpers";

export type AgentHandle = { agent: { id: string; roleId: string; name: string; status: string }; token: string };

export type Guarded = {
  toolgate: Toolgate;
  request: Api;
  executor: Executor;
  close(): Promise<void>;
};

/** A Toolgate on a fresh table with a real local HTTP executor that echoes each call's arguments as JSON. */
export async function guarded(overrides: Partial<ToolgateOptions> = {}): Promise<Guarded> {
  const [toolgate, executor] = await Promise.all([testToolgate(overrides), startExecutor(echoReply)]);
  return { toolgate, request: api(toolgate), executor, close: () => executor.close() };
}

export const echoReply = ({ body }: { body: any }) => ({
  body: { content: JSON.stringify({ tool: body?.tool, arguments: body?.arguments }), type: "json" },
});

export const OPEN_PARAMETERS = { type: "object", properties: {}, additionalProperties: true };

/** A tool definition with open parameters (any arguments) and the given x-toolgate policy. */
export const policyTool = (name: string, policy?: Record<string, unknown>, parameters: Record<string, unknown> = OPEN_PARAMETERS) => ({
  ...tool(name, `The ${name} tool.`, parameters),
  ...(policy ? { "x-toolgate": policy } : {}),
});

/** Registers a fresh http-executed group holding the given tools; returns its id. */
export async function httpGroup(request: Api, executor: Executor, tools: unknown[], extra: Record<string, unknown> = {}) {
  const id = unique("grp");
  await putGroup(request, id, { description: "Tools behind a local HTTP executor.", executor: { type: "http", url: `${executor.url}/run` }, tools, ...extra });
  return id;
}

/** A fresh role on the given groups and an agent in it (with department / level when given). */
export async function agentOn(request: Api, toolGroups: string[] | null, agent: Record<string, unknown> = {}, roleName = unique("role")) {
  const role = await createRole(request, { name: roleName, toolGroups });
  return { role, ...(await createAgent(request, role.id, agent)) } as AgentHandle & { role: Awaited<ReturnType<typeof createRole>> };
}

export const callTool = (request: Api, agent: AgentHandle, toolName: string, args: Record<string, unknown> = {}) =>
  request("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: toolName, arguments: args } });

export async function readCall(request: Api, agentId: string, callId: string) {
  const response = await request("GET", `/agents/${agentId}/calls/${callId}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

export async function allCalls(request: Api, agentId: string): Promise<any[]> {
  const calls: any[] = [];
  let cursor: string | undefined;
  do {
    const response = await request("GET", `/agents/${agentId}/calls?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    calls.push(...response.body.calls);
    cursor = response.body.nextCursor;
  } while (cursor);
  return calls;
}

/** Asserts a refusal as the design describes it: status, code, recoverable, a callId, and a refused record with that code. */
export async function expectRefused(request: Api, agentId: string, response: ApiResponse, status: number, code: string, recoverable: boolean) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body, JSON.stringify(response.body)).toMatchObject({ error: code, message: expect.any(String), recoverable });
  expect(response.body.callId, "a refusal names the call it recorded").toEqual(expect.stringMatching(/^call_/));
  const record = await readCall(request, agentId, response.body.callId);
  expect(record).toMatchObject({ callId: response.body.callId, agentId, status: "refused", error: { code } });
  return record;
}

export const statusCounts = (statuses: string[]) =>
  statuses.reduce<Record<string, number>>((counts, status) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});

export { unique, tool };

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Waits until at least `marginSeconds` remain in the current minute, so a burst of calls shares one rate window. */
export async function withinOneMinuteWindow(marginSeconds = 8) {
  const secondsIntoMinute = (Date.now() / 1000) % 60;
  if (secondsIntoMinute > 60 - marginSeconds) await sleep((60 - secondsIntoMinute) * 1000 + 50);
}
