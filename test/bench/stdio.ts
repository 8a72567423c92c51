import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { startStdioServers } from "@toolgate/local/stdio-servers";
import type { DynamoRecorder, DynamoRequest } from "./dynamo-record";
import type { DynamoFloor } from "./floor";
import { interleaved, recorded } from "./mcp";
import type { Caller } from "./mcp";
import { httpClient } from "./support";
import type { HttpClient, Note, Out } from "./support";

/** A stdio MCP server that answers at once (the handshake, one echo tool), in plain JavaScript so it runs as it is in the sandbox. */
const SERVER = `import { createInterface } from "node:readline";
const tool = { name: "bench_echo", description: "Echoes its input.", inputSchema: { type: "object", properties: { i: { type: "integer" }, text: { type: "string" } } } };
const answer = (message) => {
  if (message.method === "initialize") return { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "bench-stdio", version: "1.0.0" } };
  if (message.method === "tools/list") return { tools: [tool] };
  if (message.method === "tools/call") return { content: [{ type: "text", text: JSON.stringify(message.params.arguments ?? {}) }] };
  return {};
};
for await (const line of createInterface({ input: process.stdin })) {
  const message = JSON.parse(line);
  if (message.id !== undefined && message.method !== undefined) process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: answer(message) }) + "\\n");
}
`;

/**
 * A call through toolgate (REST, guarded and recorded) to a warm stdio server in its sandbox, beside the same call made
 * to the same program directly over stdio (the v2 Client, no sandbox), with the DynamoDB floor of toolgate's call
 * replayed among them: stdio_call_overhead_p50_ms is what toolgate adds beyond that floor.
 */
export async function benchStdio(options: { toolgateUrl: string; api: HttpClient; adminToken: string; recorder: DynamoRecorder; floor: DynamoFloor; out: Out; note: Note }) {
  const { out, recorder, floor } = options;
  const dir = await mkdtemp(join(tmpdir(), "toolgate-bench-stdio-"));
  await writeFile(join(dir, "server.mjs"), SERVER);
  const servers = await startStdioServers({ dataDir: undefined, stdioDir: undefined, log: () => {} });
  const toolgate = httpClient(options.toolgateUrl);
  const direct = new Client({ name: "bench", version: "1.0.0" });
  const admin = { token: options.adminToken };
  try {
    const executor = { type: "stdio", command: "node", args: ["server.mjs"], cwd: dir, toolPrefix: "io" };
    await options.api.json("PUT", "/groups/bench_stdio", 201, { ...admin, body: { description: "The bench's stdio server.", executor } });
    const role = await options.api.json("POST", "/roles", 201, { ...admin, body: { name: "bench-stdio", rolePrompt: "Bench role.", toolGroups: ["bench_stdio"] } });
    const agent = await options.api.json("POST", "/agents", 201, { ...admin, body: { roleId: role.id, name: "bench-stdio-agent" } });
    await direct.connect(new StdioClientTransport({ command: process.execPath, args: [join(dir, "server.mjs")], stderr: "ignore" }));
    const callPath = `/agents/${agent.agent.id}/calls`;
    let lastCall: DynamoRequest[] = [];
    const throughToolgate: Caller = async (i) => {
      const answer = await toolgate.json("POST", callPath, 200, { token: agent.token, body: { tool: "io_bench_echo", arguments: { i, text: `stdio ${i}` } } });
      if (answer.status !== "completed") throw new Error(`the call answered ${JSON.stringify(answer)}`);
    };
    const times = await interleaved({
      toolgate: recorded(recorder, throughToolgate, (requests) => (lastCall = requests)),
      floor: () => floor.replay(lastCall),
      direct: async (i) => void (await direct.callTool({ name: "bench_echo", arguments: { i, text: `stdio ${i}` } })),
    });
    const overhead = times.toolgate.p50 - times.direct.p50;
    out("stdio_call_p50_ms", times.toolgate.p50.toFixed(2));
    out("stdio_direct_call_p50_ms", times.direct.p50.toFixed(2));
    out("stdio_dynamodb_floor_p50_ms", times.floor.p50.toFixed(2));
    out("stdio_call_overhead_p50_ms", (overhead - times.floor.p50).toFixed(2));
    options.note(
      `stdio: a call through toolgate (REST) to a warm stdio server in its bubblewrap sandbox, and the same call made to the same ` +
        `program directly over stdio with the v2 Client, interleaved with the DynamoDB floor of toolgate's last call: ` +
        `stdio_call_overhead_p50_ms is toolgate's call minus the direct one minus that floor (p50s)`,
    );
  } finally {
    await direct.close().catch(() => {});
    toolgate.close();
    await servers.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
