import { expect, test } from "vitest";
import * as z from "zod";
import { jsonResult, Tool } from "../tool/tool";
import { CallSigner, environmentSecrets, run } from "./index";
import type { ExecutorCall } from "./index";

const secrets = environmentSecrets({});
const signer = new CallSigner("unit-signing-key-0123456789-0123456789");

const call = (tool: string, args: Record<string, unknown> = {}): ExecutorCall => ({ callId: "call_1", tool, agentId: "agt_1", roleId: "rol_1", arguments: args });

test("run - a native tool runs with the call's arguments, parsed by its zod schema, on behalf of the calling agent", async () => {
  const seen: unknown[] = [];
  const greet = Tool.define({
    name: "greet",
    description: "Greets.",
    parameters: z.object({ name: z.string(), times: z.number().default(1) }),
    execute: async ({ input, sessionID }) => {
      seen.push({ input, sessionID });
      return jsonResult(`hi ${input.name}`);
    },
  });
  const result = await run({ type: "native" }, call("greet", { name: "ann" }), { timeoutMs: 1_000, secrets, signer, natives: new Map([["greet", greet]]) });
  expect(result).toEqual({ content: '"hi ann"', type: "json" });
  expect(seen).toEqual([{ input: { name: "ann", times: 1 }, sessionID: "agt_1" }]);
});

test("run - a native tool slower than the timeout ends with 504 tool_timeout and its signal is aborted", async () => {
  let signal: AbortSignal | undefined;
  const slow = Tool.define({
    name: "slow",
    description: "Takes its time.",
    parameters: z.object({}),
    execute: async (context) => {
      signal = context.signal;
      await new Promise((done) => setTimeout(done, 1_000));
      return jsonResult("late");
    },
  });
  const started = Date.now();
  await expect(run({ type: "native" }, call("slow"), { timeoutMs: 50, secrets, signer, natives: new Map([["slow", slow]]) })).rejects.toMatchObject({
    status: 504,
    code: "tool_timeout",
    message: expect.stringContaining("50 ms"),
  });
  expect(Date.now() - started).toBeLessThan(900);
  expect(signal?.aborted).toBe(true);
});

test("run - a native tool toolgate does not implement is 501 no_executor; a client-executed tool never runs here", async () => {
  await expect(run({ type: "native" }, call("ghost"), { timeoutMs: 1_000, secrets, signer, natives: new Map() })).rejects.toMatchObject({ status: 501, code: "no_executor" });
  expect(() => run({ type: "client" }, call("read_file"), { timeoutMs: 1_000, secrets, signer, natives: new Map() })).toThrow(/agent's runtime/);
});
