import type { CallToolResult, GetPromptResult, ReadResourceResult } from "@modelcontextprotocol/client";
import * as z from "zod";

const TimeoutMs = z.number().int().min(1).max(900_000);
const WebUrl = z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" });

export const SECRET_NAME_PATTERN = /^[A-Za-z0-9_]{1,128}$/;
const HeaderText = z.string().max(8192).regex(/^[^\r\n\0]*$/, "must not contain line breaks");

/** A named secret, read when a call is made (TOOLGATE_SECRET_<name> locally) and never stored; `prefix` goes before it ("Bearer "). */
export const SecretRef = z.strictObject({
  secret: z.string().regex(SECRET_NAME_PATTERN, "must be a secret name: 1-128 letters, digits or '_'"),
  prefix: HeaderText.max(64).optional(),
});
export type SecretRef = z.infer<typeof SecretRef>;

const HEADER_NAME_PATTERN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/;
/** Headers toolgate's transport sets itself (the call token among them): an executor may not replace them. */
const TRANSPORT_HEADERS = new Set(["accept", "content-type", "content-length", "host", "connection", "transfer-encoding", "mcp-session-id", "mcp-protocol-version", "last-event-id", "toolgate-call"]);

export const HeaderValue = z.union([HeaderText, SecretRef]);
export type HeaderValue = z.infer<typeof HeaderValue>;

export const ExecutorHeaders = z
  .record(z.string().regex(HEADER_NAME_PATTERN, "must be an HTTP header name"), HeaderValue)
  .superRefine((headers, ctx) => {
    const names = Object.keys(headers);
    if (names.length > 32) ctx.addIssue({ code: "custom", message: "can name at most 32 headers" });
    for (const name of names)
      if (TRANSPORT_HEADERS.has(name.toLowerCase()))
        ctx.addIssue({ code: "custom", path: [name], message: `is set by toolgate's transport and cannot be given` });
  });
export type ExecutorHeaders = z.infer<typeof ExecutorHeaders>;

export const HttpExecutor = z.strictObject({
  type: z.literal("http"),
  url: WebUrl,
  headers: ExecutorHeaders.optional(),
  timeoutMs: TimeoutMs.optional(),
});
export type HttpExecutor = z.infer<typeof HttpExecutor>;

/** Prefixed to every imported tool's name with "_" ("gh" → gh_get_me), so names stay unique and valid function names. */
export const ToolPrefix = z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, "must be 1-32 letters, digits, '_' or '-'");

export const McpExecutor = z.strictObject({
  type: z.literal("mcp"),
  url: WebUrl,
  headers: ExecutorHeaders.optional(),
  toolPrefix: ToolPrefix.optional(),
  timeoutMs: TimeoutMs.optional(),
});
export type McpExecutor = z.infer<typeof McpExecutor>;

const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** Variables the sandbox sets itself: where the program lives and how it reaches the network. */
const SANDBOX_VARIABLES = /^(PATH|HOME|TMPDIR|(HTTPS?|ALL|NO)_PROXY)$/i;
const ProgramText = z.string().max(4096).regex(/^[^\0]*$/, "must not contain NUL");

/** A variable of a stdio server's environment: a literal, or a secret read when the process starts (its prefix before it). */
export const EnvValue = z.union([ProgramText, SecretRef]);
export type EnvValue = z.infer<typeof EnvValue>;

export const ProgramEnv = z.record(z.string().regex(ENV_NAME_PATTERN, "must be an environment variable name: a letter or '_', then letters, digits or '_'"), EnvValue).superRefine((env, ctx) => {
  const names = Object.keys(env);
  if (names.length > 32) ctx.addIssue({ code: "custom", message: "can name at most 32 variables" });
  for (const name of names)
    if (SANDBOX_VARIABLES.test(name)) ctx.addIssue({ code: "custom", path: [name], message: "is set by toolgate's sandbox and cannot be given" });
});

/** A host a stdio server may reach through its sandbox's proxy, on ports 80 and 443: a DNS name, never an address. */
const AllowedHost = z
  .string()
  .max(253)
  .regex(/^(?=.*[a-z])[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i, "must be a host name such as registry.npmjs.org");

/**
 * An MCP server toolgate starts as a process of its own and speaks to over stdio, inside a sandbox (docs/mcp.md, "stdio
 * servers"). `command` is a program on the sandbox's PATH or a path; `cwd` a directory of this machine shown read-only
 * where the program starts; `allowHosts` the only hosts it may reach (none by default).
 */
export const StdioExecutor = z.strictObject({
  type: z.literal("stdio"),
  command: z.string().min(1).max(1024).regex(/^[^\0\s-][^\0\r\n]*$/, "must be a program name or a path"),
  args: z.array(ProgramText).max(64).optional(),
  env: ProgramEnv.optional(),
  cwd: z.string().max(1024).regex(/^\/[^\0]*$/, "must be an absolute path").refine((path) => !path.split("/").includes(".."), "must not contain '..'").optional(),
  allowHosts: z.array(AllowedHost).max(32).optional(),
  toolPrefix: ToolPrefix.optional(),
  timeoutMs: TimeoutMs.optional(),
});
export type StdioExecutor = z.infer<typeof StdioExecutor>;

export const ClientExecutor = z.strictObject({ type: z.literal("client") });
export const NativeExecutor = z.strictObject({ type: z.literal("native") });
export const Executor = z.discriminatedUnion("type", [HttpExecutor, McpExecutor, StdioExecutor, ClientExecutor, NativeExecutor]);
export type Executor = z.infer<typeof Executor>;

/** What every way of running a tool hands back, and what a client-executed call's runtime reports. */
export const ToolResult = z.object({
  content: z.string(),
  type: z.enum(["text", "json", "error"]).default("text"),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
/**
 * A tool's result: `content` is its text (what REST answers and records keep). A call an MCP server answered carries
 * that answer whole as well (`mcpResult`: every content block, structuredContent, isError and _meta, as the SDK's
 * client parsed it), for /mcp to hand on as it came; it is never stored.
 */
export type ToolResult = z.infer<typeof ToolResult> & { mcpResult?: CallToolResult; mcpAnswer?: OfferAnswer; asksForInput?: AskedForInput };

/** A server's answer to a resource read or a prompt get, whole (never stored: a record keeps its text and a summary). */
export type OfferAnswer = { kind: "resource"; result: ReadResourceResult } | { kind: "prompt"; result: GetPromptResult };

/** What an MCP server asks for during a call on 2026-07-28 (its input_required answer's requests), by key. */
export type InputRequests = Record<string, { method: string; params?: Record<string, unknown> }>;

/**
 * A read or get its server answered input_required (MCP 2026-07-28) for a client that answers it itself: what the
 * server asks that client first (scrubbed of the executor's secrets), and its own request state (never stored).
 */
export type AskedForInput = { inputRequests: InputRequests; requestState?: string };
