import { expect, test } from "vitest";
import * as z from "zod";
import { accessError } from "../access/errors";
import { errorResult, jsonResult, Tool, ToolConfigError } from "./tool";
import type { ToolConfig, ToolContext, ToolInfo, ToolResult } from "./tool";

const EchoInput = z.object({ text: z.string().min(1), times: z.number().int().min(1).default(1) });

const echo = (overrides: Partial<ToolConfig<typeof EchoInput>> = {}) =>
  Tool.define<typeof EchoInput>({
    name: "echo",
    description: "Echo the text back.",
    parameters: EchoInput,
    execute: async ({ input }) => ({ content: input.text.repeat(input.times), type: "text" }),
    ...overrides,
  });

function context(_tool: ToolInfo, input: unknown, extra: Partial<ToolContext<unknown>> = {}): ToolContext<unknown> {
  return { callId: "call_1", sessionID: "agt_1", input, signal: new AbortController().signal, ...extra };
}

const configError = (config: unknown) => {
  try {
    Tool.define(config as Parameters<typeof Tool.define>[0]);
  } catch (error) {
    return error;
  }
  return undefined;
};

test("Tool.define - refuses an empty, missing or malformed name with a ToolConfigError", () => {
  for (const name of ["", "has space", "dots.in.name", "x".repeat(65), "é", undefined, 42]) {
    const error = configError({ name, description: "d", parameters: z.object({}), execute: async () => jsonResult(1) });
    expect(error, String(name)).toBeInstanceOf(ToolConfigError);
    expect((error as Error).name).toBe("ToolConfigError");
  }
  expect(configError({ name: "A-b_9".padEnd(64, "x"), description: "d", parameters: z.object({}), execute: async () => jsonResult(1) })).toBeUndefined();
});

test("Tool.define - refuses parameters that are not a zod schema", () => {
  for (const parameters of [{ type: "object", properties: {} }, undefined, null, "string"]) {
    const error = configError({ name: "t", description: "d", parameters, execute: async () => jsonResult(1) });
    expect(error, JSON.stringify(parameters)).toBeInstanceOf(ToolConfigError);
    expect((error as Error).message).toMatch(/zod/);
  }
});

test("Tool.define - refuses an execute that is not an async function", () => {
  for (const execute of [() => Promise.resolve(jsonResult(1)), function () {}, undefined, "run"]) {
    const error = configError({ name: "t", description: "d", parameters: z.object({}), execute });
    expect(error, String(execute)).toBeInstanceOf(ToolConfigError);
    expect((error as Error).message).toMatch(/async/);
  }
});

test("Tool.define - a valid config gives a tool with its name, description and schema", () => {
  const parameters = z.object({ text: z.string() });
  const tool = Tool.define({ name: "t", description: "d", parameters, execute: async () => jsonResult(1) });
  expect(tool).toMatchObject({ name: "t", description: "d" });
  expect(tool.parameters).toBe(parameters);
});

test("Tool.define - execute runs with the parsed input, defaults applied", async () => {
  const seen: unknown[] = [];
  const tool = echo({
    execute: async ({ input }) => {
      seen.push(input);
      return jsonResult(input);
    },
  });
  expect(await tool.execute(context(tool, { text: "hi" }))).toEqual({ content: '{"text":"hi","times":1}', type: "json" });
  expect(seen).toEqual([{ text: "hi", times: 1 }]);
});

test("Tool.define - invalid input becomes an error result telling the model to rewrite it, and execute is not called", async () => {
  let called = 0;
  const tool = echo({
    execute: async () => {
      called++;
      return jsonResult(1);
    },
  });
  for (const input of [{}, { text: "" }, { text: "a", times: 0 }, null, "text"]) {
    const result = await tool.execute(context(tool, input));
    expect(result.type, JSON.stringify(input)).toBe("error");
    expect(result.metadata).toEqual({ code: "invalid_arguments" });
    expect(result.content).toMatch(/Rewrite the input so it satisfies the tool's schema/);
    expect(result.content).toContain("echo");
  }
  expect(called).toBe(0);
  const named = await tool.execute(context(tool, { text: "a", times: 0 }));
  expect(named.content).toMatch(/times/);
});

test("Tool.define - a thrown error becomes an error result with its message and code", async () => {
  const coded = Object.assign(new Error("disk full"), { code: "ENOSPC" });
  const cases: Array<[unknown, ToolResult]> = [
    [new Error("boom"), { content: "boom", type: "error" }],
    [coded, { content: "disk full", type: "error", metadata: { code: "ENOSPC" } }],
    ["plain string", { content: "plain string", type: "error" }],
  ];
  for (const [thrown, expected] of cases) {
    const tool = echo({
      execute: async () => {
        throw thrown;
      },
    });
    expect(await tool.execute(context(tool, { text: "a" }))).toEqual(expected);
  }
});

test("Tool.define - a refusal (403) thrown by the tool is not turned into a result: the guard records it as refused", async () => {
  const tool = echo({
    execute: async () => {
      throw accessError("cannot_grant_groups", "no");
    },
  });
  await expect(tool.execute(context(tool, { text: "a" }))).rejects.toMatchObject({ status: 403, code: "cannot_grant_groups" });
});

test("errorResult and jsonResult - build tool results", () => {
  expect(errorResult("no")).toEqual({ content: "no", type: "error" });
  expect(errorResult("no", { code: "x" })).toEqual({ content: "no", type: "error", metadata: { code: "x" } });
  expect(jsonResult({ a: [1] })).toEqual({ content: '{"a":[1]}', type: "json" });
});
