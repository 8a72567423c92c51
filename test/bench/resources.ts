import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import * as z from "zod";
import { serveFetch } from "../support/http-server";
import type { DynamoRecorder, DynamoRequest } from "./dynamo-record";
import type { DynamoFloor } from "./floor";
import { interleaved, recorded } from "./mcp";
import type { Caller } from "./mcp";
import { httpClient } from "./support";
import type { HttpClient, Note, Out } from "./support";

const DOCUMENT_URI = "bench://notes/today";
const DOCUMENT = "Today's notes: the parser's flaky test is fixed.";

/** An MCP server that answers at once: one resource, and a tool of the same weight, to compare a read with a call. */
async function startUpstream() {
  const factory = () => {
    const server = new McpServer({ name: "bench-resources", version: "1.0.0" });
    server.registerResource("notes", DOCUMENT_URI, { mimeType: "text/plain" }, async () => ({ contents: [{ uri: DOCUMENT_URI, mimeType: "text/plain", text: DOCUMENT }] }));
    server.registerTool("bench_note", { description: "Answers the notes.", inputSchema: z.object({ i: z.number().int() }) }, async () => ({ content: [{ type: "text", text: DOCUMENT }] }));
    return server;
  };
  const handler = createMcpHandler(factory, { responseMode: "json" });
  const served = await serveFetch((request) => handler.fetch(request));
  return { url: `${served.url}/mcp`, close: served.close };
}

/**
 * A resource read through toolgate (REST, guarded and recorded) beside a tool call to the same MCP server (an mcp
 * executor), each minus the same request made to the server directly, in units of its own DynamoDB floor: what the
 * guard costs a read, next to what it costs a call.
 */
export async function benchResources(options: { toolgateUrl: string; api: HttpClient; adminToken: string; recorder: DynamoRecorder; floor: DynamoFloor; out: Out; note: Note }) {
  const { out, recorder, floor } = options;
  const upstream = await startUpstream();
  const toolgate = httpClient(options.toolgateUrl);
  const direct = new Client({ name: "bench", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  const admin = { token: options.adminToken };
  try {
    await options.api.json("PUT", "/groups/bench_resources", 201, { ...admin, body: { description: "The bench's MCP server with a resource.", executor: { type: "mcp", url: upstream.url } } });
    const role = await options.api.json("POST", "/roles", 201, { ...admin, body: { name: "bench-resources", rolePrompt: "Bench role.", toolGroups: ["bench_resources"] } });
    const agent = await options.api.json("POST", "/agents", 201, { ...admin, body: { roleId: role.id, name: "bench-resources-agent" } });
    const { resources } = await options.api.json("GET", `/agents/${agent.agent.id}/resources`, 200, { token: agent.token });
    const listed = (resources as Array<{ uri: string }>).find((resource) => resource.uri.endsWith(DOCUMENT_URI));
    if (!listed) throw new Error(`the agent should list ${DOCUMENT_URI}: ${JSON.stringify(resources)}`);
    await direct.connect(new StreamableHTTPClientTransport(new URL(upstream.url)));
    const readPath = `/agents/${agent.agent.id}/resources/read?uri=${encodeURIComponent(listed.uri)}`;
    const callPath = `/agents/${agent.agent.id}/calls`;
    let lastRead: DynamoRequest[] = [];
    let lastCall: DynamoRequest[] = [];
    const read: Caller = async () => {
      const answer = await toolgate.json("GET", readPath, 200, { token: agent.token });
      if (answer.contents?.[0]?.text !== DOCUMENT) throw new Error(`the read answered ${JSON.stringify(answer)}`);
    };
    const call: Caller = async (i) => {
      const answer = await toolgate.json("POST", callPath, 200, { token: agent.token, body: { tool: "bench_note", arguments: { i } } });
      if (answer.result?.content !== DOCUMENT) throw new Error(`the call answered ${JSON.stringify(answer)}`);
    };
    const times = await interleaved({
      read: recorded(recorder, read, (requests) => (lastRead = requests)),
      readFloor: () => floor.replay(lastRead),
      call: recorded(recorder, call, (requests) => (lastCall = requests)),
      callFloor: () => floor.replay(lastCall),
      directRead: async () => void (await direct.readResource({ uri: DOCUMENT_URI })),
      directCall: async (i) => void (await direct.callTool({ name: "bench_note", arguments: { i } })),
    });
    const readOverhead = times.read.p50 - times.directRead.p50;
    const callOverhead = times.call.p50 - times.directCall.p50;
    out("resources_read_p50_ms", times.read.p50.toFixed(2));
    out("resources_read_overhead_p50_ms", readOverhead.toFixed(2));
    out("resources_read_dynamodb_floor_p50_ms", times.readFloor.p50.toFixed(2));
    out("resources_read_overhead_vs_floor", (readOverhead / times.readFloor.p50).toFixed(2));
    out("mcp_tool_call_overhead_vs_floor_beside_reads", (callOverhead / times.callFloor.p50).toFixed(2));
    options.note(
      `resources: a resource read through toolgate (GET /agents/:id/resources/read, guarded and recorded) and a tool call to the same ` +
        `MCP server (POST /agents/:id/calls, an mcp executor), each minus the same read or call made to the server directly with the v2 ` +
        `Client, in units of its own DynamoDB floor (replayed among them): resources_read_overhead_vs_floor beside ` +
        `mcp_tool_call_overhead_vs_floor_beside_reads`,
    );
  } finally {
    await direct.close().catch(() => {});
    toolgate.close();
    await upstream.close();
  }
}
