import { expect, test } from "vitest";
import { CallSigner, environmentSecrets, run } from "./index";
import type { ExecutorCall, Natives } from "./index";

const secrets = environmentSecrets({});
const signer = new CallSigner("unit-signing-key-0123456789-0123456789");

const call = (tool: string, args: Record<string, unknown> = {}): ExecutorCall => ({ callId: "call_1", tool, agentId: "agt_1", roleId: "rol_1", arguments: args });

test("run - a native call goes to toolgate's own tools with the call as it came, on behalf of the calling agent", async () => {
  const seen: ExecutorCall[] = [];
  const natives: Natives = {
    run: async (received) => {
      seen.push(received);
      return { content: '"hi ann"', type: "json" };
    },
  };
  const result = await run({ type: "native" }, call("greet", { name: "ann" }), { timeoutMs: 1_000, secrets, signer, natives });
  expect(result).toEqual({ content: '"hi ann"', type: "json" });
  expect(seen).toEqual([call("greet", { name: "ann" })]);
});

test("run - a native tool slower than the timeout ends with 504 tool_timeout and its signal is aborted", async () => {
  let signal: AbortSignal | undefined;
  const natives: Natives = {
    run: async (_call, aborted) => {
      signal = aborted;
      await new Promise((done) => setTimeout(done, 1_000));
      return { content: "late", type: "text" };
    },
  };
  const started = Date.now();
  await expect(run({ type: "native" }, call("slow"), { timeoutMs: 50, secrets, signer, natives })).rejects.toMatchObject({
    status: 504,
    code: "tool_timeout",
    message: expect.stringContaining("50 ms"),
  });
  expect(Date.now() - started).toBeLessThan(900);
  expect(signal?.aborted).toBe(true);
});

test("run - a native tool toolgate does not implement is 501 no_executor; a client-executed tool never runs here", async () => {
  await expect(run({ type: "native" }, call("ghost"), { timeoutMs: 1_000, secrets, signer })).rejects.toMatchObject({ status: 501, code: "no_executor" });
  await expect(run({ type: "client" }, call("read_file"), { timeoutMs: 1_000, secrets, signer })).rejects.toThrow(/agent's runtime/);
});
