// A stdio MCP server as a toolgate module on Lambda: its process started once per warm container, reused by every
// invocation, and served over Streamable HTTP at the function URL, which toolgate registers as an `mcp` group.
import { createHash } from "node:crypto";
import { Client } from "@modelcontextprotocol/client";
import type { CallToolResult, Tool } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { createMcpHandler, Server } from "@modelcontextprotocol/server";
import { CALL_TOKEN_HEADER, CallRefused, toolgateKeys, verifyCallToken } from "./call-token.js";
import type { VerifiedCall } from "./call-token.js";
import { deleteGroup, putGroup, toolgateAt } from "./group-api.js";
import { lambdaHandler } from "./lambda.js";
import type { ModuleLambdaHandler } from "./lambda.js";
import { SIGNED_CALL_KEY } from "./mcp.js";
import type { Registrar } from "./module.js";
import { processReplayStore } from "./replay.js";
import type { ReplayStore } from "./replay.js";

/** A variable of the program's environment: a literal, or an SST secret linked to the function, read at its first start. */
export type StdioEnvValue = string | { secret: string };

export type StdioModuleSpec = {
  /** The group's id in toolgate, and its description. */
  id: string;
  description: string;
  /** The program and its arguments, run from `cwd` (by default the function's code, where its files are bundled). */
  command: string;
  args?: string[];
  cwd?: string;
  env?: Record<string, StdioEnvValue>;
  /** Prefixed to the tools' names in toolgate (see the mcp executor's toolPrefix). */
  toolPrefix?: string;
  /** Run a tools/call only with a token toolgate signed for this function, tool and arguments, used once (the default). */
  signedCallsOnly?: boolean;
  /** Where the ids of accepted tokens are kept: by default the container's memory; `dynamoReplayStore()` for every container. */
  replayStore?: ReplayStore;
  toolgate?: { url?: string };
};

const CLIENT_INFO = { name: "toolgate-stdio-module", version: "1.0.0" };
const refusal = (message: string) => Response.json({ error: "unauthenticated", message }, { status: 401 });

async function secretValue(name: string): Promise<string> {
  const { Resource } = (await import("sst")) as unknown as { Resource: Record<string, { value?: string } | undefined> };
  const value = Resource[name]?.value;
  if (typeof value !== "string") throw new Error(`the secret "${name}" is not linked to this function`);
  return value;
}

/** The program's environment: its own variables only (the function's AWS credentials never reach it), PATH and HOME from the function's. */
async function environment(env: Record<string, StdioEnvValue> = {}) {
  const entries = await Promise.all(Object.entries(env).map(async ([name, value]) => [name, typeof value === "string" ? value : await secretValue(value.secret)] as const));
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/tmp", ...Object.fromEntries(entries) };
}

/** The group toolgate registers: an mcp executor at the function URL, its tools imported from this server. */
const groupBody = (spec: StdioModuleSpec, url: string) => ({ description: spec.description, executor: { type: "mcp", url, ...(spec.toolPrefix ? { toolPrefix: spec.toolPrefix } : {}) } });

/**
 * A stdio MCP server as a module: `fetch` serves it over Streamable HTTP (stateless), each tools/list and tools/call
 * forwarded to one process of the program, started on the first request and started again after it ends; progress it
 * reports for a call reaches the caller, and a signed call is cancelled at its deadline, when toolgate stops waiting.
 * `announce` registers it as an `mcp` group at the module's URL.
 */
export function stdioModule(spec: StdioModuleSpec) {
  let connected: Promise<Client> | undefined;
  let keys: ReturnType<typeof toolgateKeys> | undefined;
  const version = createHash("sha256").update(JSON.stringify([spec.id, spec.command, spec.args ?? []])).digest("base64url").slice(0, 22);

  const client = () =>
    (connected ??= (async () => {
      const transport = new StdioClientTransport({ command: spec.command, args: spec.args ?? [], env: await environment(spec.env), stderr: "inherit", ...(spec.cwd ? { cwd: spec.cwd } : {}) });
      const client = new Client(CLIENT_INFO, { capabilities: {} });
      client.onclose = () => (connected = undefined);
      await client.connect(transport);
      return client;
    })().catch((error: unknown) => {
      connected = undefined;
      throw error;
    }));

  const handler = createMcpHandler(
    ({ authInfo }) => {
      const signed = authInfo?.extra?.[SIGNED_CALL_KEY] as VerifiedCall | undefined;
      const server = new Server({ name: spec.id, version }, { capabilities: { tools: {} } });
      server.setRequestHandler("tools/list", async (request) => ({ tools: (await (await client()).listTools(request.params ?? {})).tools as Tool[] }));
      server.setRequestHandler("tools/call", async (request, ctx) => {
        const progressToken = ctx.mcpReq._meta?.progressToken;
        const onprogress =
          progressToken === undefined ? undefined : (progress: { progress: number; total?: number; message?: string }) => void ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken, ...progress } });
        const { name, arguments: args } = request.params;
        const untilDeadline = signed ? { timeout: Math.max(1, signed.deadline - Date.now()) } : {};
        const options = { signal: ctx.mcpReq.signal, ...untilDeadline, ...(onprogress ? { onprogress } : {}) };
        return (await (await client()).callTool({ name, arguments: args ?? {} }, options)) as CallToolResult;
      });
      return server;
    },
    { legacy: "stateless", responseMode: "auto" },
  );

  const toolgateUrl = (registrar?: { toolgateUrl?: string }) => toolgateAt(spec.id, registrar?.toolgateUrl ?? spec.toolgate?.url, "set TOOLGATE_URL.");

  return {
    id: spec.id,
    definitions: () => ({ version }),
    async fetch(request: Request): Promise<Response> {
      // A function answers once, its response buffered: there is no stream of the session's own to hold open.
      if (request.method === "GET") return new Response(null, { status: 405, headers: { allow: "POST, DELETE" } });
      if (spec.signedCallsOnly === false || request.method !== "POST") return handler.fetch(request);
      const body: unknown = await request.clone().json().catch(() => undefined);
      const call = (Array.isArray(body) ? body : [body]).filter((message: { method?: string } | null) => message?.method === "tools/call") as Array<{ params?: { name?: unknown; arguments?: unknown } }>;
      if (call.length === 0) return handler.fetch(request, { parsedBody: body });
      if (call.length > 1) return refusal("A signed call is one tools/call per request.");
      const token = request.headers.get(CALL_TOKEN_HEADER);
      const signed = { tool: call[0]!.params?.name, arguments: call[0]!.params?.arguments ?? {} };
      let verified: VerifiedCall;
      try {
        verified = await verifyCallToken(token, signed, (keys ??= toolgateKeys(toolgateUrl())), request.url.split("?")[0]!, { replayStore: spec.replayStore ?? processReplayStore });
      } catch (error) {
        if (error instanceof CallRefused) return refusal(error.message);
        throw error;
      }
      return handler.fetch(request, { parsedBody: body, authInfo: { token: token!, clientId: "toolgate", scopes: [], extra: { [SIGNED_CALL_KEY]: verified } } });
    },
    async announce(registrar: Registrar) {
      if ("bus" in registrar || !registrar.url) throw new Error(`The stdio module "${spec.id}" is announced with an admin token and its URL.`);
      await putGroup(spec.id, toolgateUrl(registrar), registrar.adminToken, groupBody(spec, registrar.url));
    },
    async withdraw(registrar: Registrar) {
      if ("bus" in registrar) throw new Error(`The stdio module "${spec.id}" is withdrawn with an admin token.`);
      await deleteGroup(spec.id, toolgateUrl(registrar), registrar.adminToken);
    },
  };
}

/** The Lambda handler of a stdio server: see stdioModule; the registration event of ToolgateModule registers it. */
export const stdioLambdaHandler = (spec: StdioModuleSpec): ModuleLambdaHandler => lambdaHandler(stdioModule(spec));
