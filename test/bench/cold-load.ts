import { performance } from "node:perf_hooks";
import { Toolgate } from "@toolgate/core/toolgate";
import type { ToolgateOptions } from "@toolgate/core/toolgate";
import { executionApp } from "@toolgate/functions/api/execution";
import { estimateUnits } from "./aws-units";
import { DynamoRecorder } from "./dynamo-record";
import type { ItemReader } from "./item-reader";

export type ColdAgent = { id: string; token: string };

/**
 * What a cold process (a new Lambda instance) reads to answer an agent's first GET /agents/:id/tools: its start
 * (the built-in check, the root role and agent) and the request, in read units as AWS bills them from the items' sizes.
 */
export async function coldLoad(options: ToolgateOptions, reader: ItemReader, agent: ColdAgent) {
  const cold = new Toolgate(options);
  const recorder = new DynamoRecorder(cold.db.client);
  try {
    const app = executionApp(() => cold);
    recorder.begin();
    const started = performance.now();
    const response = await app.request(`/agents/${agent.id}/tools`, { headers: { authorization: `Bearer ${agent.token}` } });
    const ms = performance.now() - started;
    const requests = recorder.end();
    if (response.status !== 200) throw new Error(`the cold GET /agents/:id/tools answered ${response.status}: ${await response.text()}`);
    const tools = ((await response.json()) as { tools: unknown[] }).tools.length;
    const units = await estimateUnits(requests, reader, new Map(), new Map());
    return { ms, readUnits: units.readUnits, writeUnits: units.writeUnits, tools, operations: requests.map((request) => request.operation).join(" ") };
  } finally {
    cold.db.client.destroy();
  }
}
