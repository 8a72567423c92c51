// The stdio executor: reached only through `await import("./stdio")` (executor/index.ts), so nothing that never runs a
// stdio server loads it, and a function's bundle that never names it holds none of it.
import { createHash } from "node:crypto";
import { listMcpTools, runMcpExecutor } from "./mcp";
import type { McpCall, McpCallOptions } from "./mcp";
import type { Connected, Upstream } from "./mcp-connection";
import type { McpTool } from "./mcp-tools";
import { executorError } from "./errors";
import { resolveSecrets } from "./secrets";
import type { SecretSource } from "./secrets";
import type { StdioExecutor, ToolResult } from "./schema";
import { stdioHost } from "./stdio-host";
import type { StdioHost } from "./stdio-host";
import { StdioServer } from "./stdio-process";

/** Each group's server, by group id; a group's executor or secrets changed since its process started make a new one. */
const servers = new Map<string, StdioServer>();

const noHost = (group: string) =>
  executorError("executor_failed", `The stdio MCP server of the group "${group}" cannot run here: no runtime in this process starts stdio servers (npm start does).`, { recoverable: false });

const keyOf = (executor: StdioExecutor, env: Record<string, string>) => createHash("sha256").update(JSON.stringify([executor, env])).digest("base64url");

/** The group's server for this executor and these secret values: the running one, or a new one in place of a stale one. */
function serverFor(host: StdioHost, group: string, executor: StdioExecutor, env: Record<string, string>, secrets: string[]) {
  const key = keyOf(executor, env);
  const current = servers.get(group);
  if (current?.key === key) return current;
  void current?.stop();
  const server = new StdioServer(key, { group, executor, env }, host, secrets);
  servers.set(group, server);
  return server;
}

/** The group's stdio server as an upstream of the MCP executor: its calls go through the same exchange, relay and results. */
export function stdioUpstream(group: string, executor: StdioExecutor): Upstream {
  return {
    where: `of the group "${group}" (stdio)`,
    ...(executor.toolPrefix ? { toolPrefix: executor.toolPrefix } : {}),
    async open(source) {
      const host = stdioHost();
      if (!host) throw noHost(group);
      const { values: env, secrets } = await resolveSecrets(executor.env, source, `the stdio server of the group "${group}"`);
      const server = serverFor(host, group, executor, env, secrets);
      const withConnection: Connected = (serving, _signal, work) => server.serve(serving, (client) => work({ key: server.key, client, ...(serving ? { serving } : {}) }));
      return { secrets, withConnection };
    },
  };
}

export const listStdioTools = (group: string, executor: StdioExecutor, source: SecretSource, timeoutMs: number): Promise<McpTool[]> =>
  listMcpTools(stdioUpstream(group, executor), source, timeoutMs);

export const runStdioExecutor = (group: string, executor: StdioExecutor, call: McpCall, source: SecretSource, timeoutMs: number, options: McpCallOptions = {}): Promise<ToolResult> =>
  runMcpExecutor(stdioUpstream(group, executor), call, source, timeoutMs, options);

/** Stops the group's process, if one runs, unless it runs this executor still (its group was removed, or its executor changed). */
export async function stopStdioServer(group: string, unless?: StdioExecutor) {
  const server = servers.get(group);
  if (!server || (unless && JSON.stringify(unless) === JSON.stringify(server.executor))) return;
  servers.delete(group);
  await server.stop();
}

/** Stops every process (shutdown). */
export async function stopStdioServers() {
  const all = [...servers.values()];
  servers.clear();
  await Promise.all(all.map((server) => server.stop()));
}
