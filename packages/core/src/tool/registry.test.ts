import { expect, test } from "vitest";
import { z } from "zod";
import { jsonResult, Tool } from "./tool";
import type { ToolMetadata } from "./tool";
import { ToolRegistry, ToolRegistryError } from "./registry";

function counted(name: string, metadata: ToolMetadata = {}, description = `The ${name} tool.`) {
  const calls: unknown[] = [];
  const tool = Tool.define({
    name,
    description,
    parameters: z.object({ n: z.number().optional(), text: z.string().optional() }).passthrough(),
    execute: async ({ input }) => {
      calls.push(input);
      return jsonResult({ tool: name, input });
    },
    metadata,
  });
  return { tool, calls };
}

const registryOf = (...names: string[]) => {
  const registry = new ToolRegistry();
  for (const name of names) registry.register(counted(name).tool);
  return registry;
};

const registryError = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error as ToolRegistryError;
  }
  throw new Error("expected a ToolRegistryError");
};

test("ToolRegistry.register - refuses a second tool with the same name in any case", () => {
  const registry = registryOf("Search");
  for (const name of ["Search", "search", "SEARCH"]) {
    const error = registryError(() => registry.register(counted(name).tool));
    expect(error).toBeInstanceOf(ToolRegistryError);
    expect(error.code).toBe("duplicate_tool");
  }
  expect(registry.getAll()).toHaveLength(1);
});

test("ToolRegistry.get - finds a tool by name in any case", () => {
  const registry = registryOf("Search");
  expect(registry.get("search")?.name).toBe("Search");
  expect(registry.get("SEARCH")?.name).toBe("Search");
  expect(registry.get("other")).toBeUndefined();
});

test("ToolRegistry.unregister - removes a tool by name in any case and says whether it was there", () => {
  const registry = registryOf("Search", "fetch");
  expect(registry.unregister("SEARCH")).toBe(true);
  expect(registry.unregister("search")).toBe(false);
  expect(registry.get("Search")).toBeUndefined();
  expect(registry.getAll().map((tool) => tool.name)).toEqual(["fetch"]);
  registry.register(counted("search").tool);
  expect(registry.get("search")).toBeDefined();
});

test("ToolRegistry.update - changes the description and merges metadata", () => {
  const registry = new ToolRegistry();
  registry.register(counted("search", { category: "code", tags: ["a"] }).tool);
  const updated = registry.update("SEARCH", { description: "Search the code base.", metadata: { tags: ["b"] } });
  expect(updated).toMatchObject({ name: "search", description: "Search the code base.", metadata: { category: "code", tags: ["b"] } });
  expect(registry.get("search")).toMatchObject({ description: "Search the code base.", metadata: { category: "code", tags: ["b"] } });
  expect(registry.list("code").map((tool) => tool.name)).toEqual(["search"]);
  expect(registry.findByTag("b").map((tool) => tool.name)).toEqual(["search"]);
  expect(registry.findByTag("a")).toEqual([]);
});

test("ToolRegistry.update - the updated description is what definition() gives agents", () => {
  const registry = new ToolRegistry();
  registry.register(counted("search").tool);
  registry.update("search", { description: "Search the code base." });
  expect(registry.get("search")!.definition().function.description).toBe("Search the code base.");
});

test("ToolRegistry.update - a changed metadata.timeoutMs applies to the next execution", async () => {
  const registry = new ToolRegistry();
  registry.register(
    Tool.define({
      name: "slow",
      description: "d",
      parameters: z.object({}),
      execute: async () => {
        await new Promise((done) => setTimeout(done, 300));
        return jsonResult("done");
      },
      metadata: { timeoutMs: 5_000 },
    }),
  );
  registry.update("slow", { metadata: { timeoutMs: 50 } });
  expect(registry.get("slow")!.metadata.timeoutMs).toBe(50);
  expect(await registry.execute("slow", {})).toMatchObject({ type: "error", metadata: { code: "tool_timeout" } });
});

test("ToolRegistry.update - an unknown tool is an unknown_tool error", () => {
  expect(registryError(() => new ToolRegistry().update("nope", { description: "x" })).code).toBe("unknown_tool");
  expect(registryError(() => new ToolRegistry().disable("nope")).code).toBe("unknown_tool");
  expect(registryError(() => new ToolRegistry().enable("nope")).code).toBe("unknown_tool");
});

test("ToolRegistry.disable - a disabled tool is not executed and enable restores it", async () => {
  const registry = new ToolRegistry();
  const { tool, calls } = counted("search");
  registry.register(tool);
  registry.disable("Search");
  expect(registry.get("search")?.disabled).toBe(true);
  const refused = await registry.execute("search", { n: 1 });
  expect(refused).toEqual({ type: "error", content: expect.stringMatching(/disabled/), metadata: { code: "tool_disabled" } });
  expect(calls).toEqual([]);
  expect(registry.getCallHistory()).toEqual([]);
  registry.enable("search");
  expect((await registry.execute("search", { n: 1 })).type).toBe("json");
  expect(calls).toEqual([{ n: 1 }]);
});

test("ToolRegistry.execute - an unknown tool gives an unknown_tool error result", async () => {
  expect(await new ToolRegistry().execute("nope", {})).toEqual({ type: "error", content: expect.stringContaining("nope"), metadata: { code: "unknown_tool" } });
});

test("ToolRegistry.execute - passes a full context to the tool and records the call", async () => {
  const registry = new ToolRegistry();
  let seen: Record<string, unknown> | undefined;
  registry.register(
    Tool.define({
      name: "probe",
      description: "d",
      parameters: z.object({ q: z.string() }),
      execute: async (context) => {
        seen = { ...context };
        return jsonResult(1);
      },
    }),
  );
  await registry.execute("PROBE", { q: "x" }, { callId: "call_7", sessionID: "agt_2", messageID: "msg_1" });
  expect(seen).toMatchObject({ callId: "call_7", sessionID: "agt_2", messageID: "msg_1", input: { q: "x" }, registry });
  expect((seen!.tool as { name: string }).name).toBe("probe");
  expect(seen!.signal).toBeInstanceOf(AbortSignal);
  expect(registry.getCallHistory()).toEqual([
    { toolName: "probe", parameters: { q: "x" }, parametersHash: expect.any(String), sessionID: "agt_2", timestamp: expect.any(Number), callId: "call_7" },
  ]);
  await registry.execute("probe", { q: "y" });
  const [latest] = registry.getCallHistory();
  expect(latest).toMatchObject({ sessionID: "anonymous", callId: expect.stringMatching(/^call_/) });
});

test("ToolRegistry.list - all tools, or those of one category", () => {
  const registry = new ToolRegistry();
  registry.register(counted("a", { category: "files" }).tool);
  registry.register(counted("b", { category: "net" }).tool);
  registry.register(counted("c", { category: "files" }).tool);
  registry.register(counted("d").tool);
  expect(registry.list().map((tool) => tool.name)).toEqual(["a", "b", "c", "d"]);
  expect(registry.list("files").map((tool) => tool.name)).toEqual(["a", "c"]);
  expect(registry.list("none")).toEqual([]);
  expect(registry.getAll().map((tool) => tool.name)).toEqual(["a", "b", "c", "d"]);
});

test("ToolRegistry.search - matches name, description or tag, ignoring case; a blank query finds nothing", () => {
  const registry = new ToolRegistry();
  registry.register(counted("read_file", {}, "Read a file from disk.").tool);
  registry.register(counted("http_get", { tags: ["Network"] }, "Fetch a URL.").tool);
  registry.register(counted("sum", {}, "Add numbers.").tool);
  expect(registry.search("FILE").map((tool) => tool.name)).toEqual(["read_file"]);
  expect(registry.search("url").map((tool) => tool.name)).toEqual(["http_get"]);
  expect(registry.search("netw").map((tool) => tool.name)).toEqual(["http_get"]);
  expect(registry.search("  sum ").map((tool) => tool.name)).toEqual(["sum"]);
  expect(registry.search("")).toEqual([]);
  expect(registry.search("   ")).toEqual([]);
  expect(registry.search("zzz")).toEqual([]);
});

test("ToolRegistry.findByTag - exact tag matches only", () => {
  const registry = new ToolRegistry();
  registry.register(counted("a", { tags: ["fs", "read"] }).tool);
  registry.register(counted("b", { tags: ["fs"] }).tool);
  registry.register(counted("c").tool);
  expect(registry.findByTag("fs").map((tool) => tool.name)).toEqual(["a", "b"]);
  expect(registry.findByTag("read").map((tool) => tool.name)).toEqual(["a"]);
  expect(registry.findByTag("f")).toEqual([]);
});

test("ToolRegistry.getStats - counts tools, disabled tools, categories and recorded calls", async () => {
  const registry = new ToolRegistry();
  registry.register(counted("a", { category: "files" }).tool);
  registry.register(counted("b", { category: "files" }).tool);
  registry.register(counted("c").tool);
  registry.disable("b");
  await registry.execute("a", { n: 1 });
  await registry.execute("a", { n: 2 });
  await registry.execute("b", {});
  expect(registry.getStats()).toEqual({ totalTools: 3, disabledTools: 1, categories: { files: 2, uncategorised: 1 }, recordedCalls: 2 });
});

test("ToolRegistry.getCallHistory - newest first and bounded at 100 calls by default", async () => {
  const registry = registryOf("t");
  for (let n = 1; n <= 105; n++) await registry.execute("t", { n });
  const history = registry.getCallHistory();
  expect(history).toHaveLength(100);
  expect(history[0]!.parameters).toEqual({ n: 105 });
  expect(history[99]!.parameters).toEqual({ n: 6 });
  expect(registry.getCallHistory(3).map((record) => record.parameters)).toEqual([{ n: 105 }, { n: 104 }, { n: 103 }]);
  expect(registry.getStats().recordedCalls).toBe(100);
});

test("ToolRegistry.getCallHistory - the bound is configurable", async () => {
  const registry = new ToolRegistry({ historyLimit: 5 });
  registry.register(counted("t").tool);
  for (let n = 1; n <= 8; n++) await registry.execute("t", { n });
  expect(registry.getCallHistory().map((record) => record.parameters)).toEqual([{ n: 8 }, { n: 7 }, { n: 6 }, { n: 5 }, { n: 4 }]);
});

test("ToolRegistry.detectDoomLoop - the same tool with the same input three times in a row", async () => {
  const registry = registryOf("t", "u");
  expect(registry.detectDoomLoop()).toEqual({ detected: false });
  await registry.execute("t", { n: 1, text: "a" });
  await registry.execute("t", { n: 1, text: "a" });
  expect(registry.detectDoomLoop()).toEqual({ detected: false });
  await registry.execute("t", { text: "a", n: 1 });
  expect(registry.detectDoomLoop()).toEqual({ detected: true, toolName: "t", repeats: 3 });
});

test("ToolRegistry.detectDoomLoop - looks only at the most recent calls, so a different call breaks the loop", async () => {
  const registry = registryOf("t", "u");
  for (const input of [{ n: 1 }, { n: 1 }, { n: 1 }, { n: 2 }]) await registry.execute("t", input);
  expect(registry.detectDoomLoop()).toEqual({ detected: false });
  await registry.execute("t", { n: 2 });
  expect(registry.detectDoomLoop()).toEqual({ detected: false });
  await registry.execute("t", { n: 2 });
  expect(registry.detectDoomLoop()).toEqual({ detected: true, toolName: "t", repeats: 3 });
  await registry.execute("u", { n: 2 });
  expect(registry.detectDoomLoop()).toEqual({ detected: false });
});

test("ToolRegistry.detectDoomLoop - per session when a session is given, and with a configurable threshold", async () => {
  const registry = new ToolRegistry({ doomLoopThreshold: 2 });
  registry.register(counted("t").tool);
  await registry.execute("t", { n: 1 }, { sessionID: "a" });
  await registry.execute("t", { n: 9 }, { sessionID: "b" });
  await registry.execute("t", { n: 1 }, { sessionID: "a" });
  expect(registry.detectDoomLoop()).toEqual({ detected: false });
  expect(registry.detectDoomLoop("a")).toEqual({ detected: true, toolName: "t", repeats: 2 });
  expect(registry.detectDoomLoop("b")).toEqual({ detected: false });
  expect(registry.detectDoomLoop("a", 3)).toEqual({ detected: false });
});
