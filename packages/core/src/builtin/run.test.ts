import { defineTool } from "@toolgate/module/tool";
import { expect, test } from "vitest";
import * as z from "zod";
import { accessError } from "../access/errors";
import { StoreUnavailableError } from "../error";
import type { ExecutorCall } from "../executor/index";
import type { NativeContext } from "./native";
import { nativeRunner, runNativeTool } from "./run";

const call = (args: unknown): ExecutorCall => ({ callId: "call_1", tool: "echo", agentId: "agt_1", roleId: "rol_1", arguments: args as Record<string, unknown> });
const context = { callId: "call_1", agentId: "agt_1", signal: new AbortController().signal } as NativeContext;

const echo = (execute: (input: { text: string; times: number }, ctx: NativeContext) => unknown) =>
  defineTool({
    name: "echo",
    description: "Echo the text back.",
    parameters: z.object({ text: z.string().min(1), times: z.number().int().min(1).default(1) }),
    execute: async (input, ctx: NativeContext) => execute(input, ctx) as never,
  });

test("runNativeTool - runs with the parsed input (defaults applied) and the calling agent; a value is a JSON result, a string a text result", async () => {
  const seen: unknown[] = [];
  const tool = echo((input, ctx) => {
    seen.push({ input, agentId: ctx.agentId });
    return { echoed: input.text.repeat(input.times) };
  });
  expect(await runNativeTool(tool, call({ text: "hi" }), context)).toEqual({ content: '{"echoed":"hi"}', type: "json" });
  expect(seen).toEqual([{ input: { text: "hi", times: 1 }, agentId: "agt_1" }]);
  expect(await runNativeTool(echo(({ text }) => text), call({ text: "hi" }), context)).toEqual({ content: "hi", type: "text" });
});

test("runNativeTool - invalid input is an error result telling the model to rewrite it, and execute is not called", async () => {
  let called = 0;
  const tool = echo(() => called++);
  for (const input of [{}, { text: "" }, { text: "a", times: 0 }, null, "text"]) {
    const result = await runNativeTool(tool, call(input), context);
    expect(result.type, JSON.stringify(input)).toBe("error");
    expect(result.metadata).toEqual({ code: "invalid_arguments" });
    expect(result.content).toMatch(/^The arguments for echo are not valid \(.*\)\. Rewrite the input so it satisfies the tool's schema\.$/);
  }
  expect(called).toBe(0);
  expect((await runNativeTool(tool, call({ text: "a", times: 0 }), context)).content).toMatch(/times/);
});

test("runNativeTool - a thrown error is an error result with its message and code", async () => {
  const coded = Object.assign(new Error("disk full"), { code: "ENOSPC" });
  const cases: Array<[unknown, unknown]> = [
    [new Error("boom"), { content: "boom", type: "error" }],
    [coded, { content: "disk full", type: "error", metadata: { code: "ENOSPC" } }],
    ["plain string", { content: "plain string", type: "error" }],
  ];
  for (const [thrown, expected] of cases) {
    const tool = echo(() => {
      throw thrown;
    });
    expect(await runNativeTool(tool, call({ text: "a" }), context)).toEqual(expected);
  }
});

test("runNativeTool - a refusal (403) or an unavailable store is thrown on: the guard records the call as refused or failed, not as the tool's result", async () => {
  const refusing = echo(() => {
    throw accessError("cannot_grant_groups", "no");
  });
  await expect(runNativeTool(refusing, call({ text: "a" }), context)).rejects.toMatchObject({ status: 403, code: "cannot_grant_groups" });
  const unavailable = echo(() => {
    throw new StoreUnavailableError();
  });
  await expect(runNativeTool(unavailable, call({ text: "a" }), context)).rejects.toBeInstanceOf(StoreUnavailableError);
});

test("nativeRunner - a tool toolgate does not run itself is 501 no_executor", async () => {
  const runner = nativeRunner({} as NativeContext);
  expect(() => runner.run({ ...call({}), tool: "read_file" }, context.signal)).toThrow(expect.objectContaining({ status: 501, code: "no_executor" }));
});
