import * as z from "zod";
import { Agent } from "@toolgate/core/agent";
import { AnswerToken } from "@toolgate/core/answer-token";
import { CallKind, CallRecord, CallStatus } from "@toolgate/core/call";
import { EXECUTOR_TYPES } from "@toolgate/core/executor";
import { Executor, Group, GroupSource } from "@toolgate/core/group";
import { Message } from "@toolgate/core/message";
import { ModuleState } from "@toolgate/core/module";
import { PolicyEffect, PolicyMode, PolicyOverride, PolicyScope, ShortRule, ToolPolicy } from "@toolgate/core/policy";
import { Role } from "@toolgate/core/role";
import { ToolDefinition } from "@toolgate/core/tool";

// What the API answers, as zod schemas built on the core's: GET /openapi.json documents them, and the tests parse real answers with them.

export const page = <K extends string, T extends z.ZodType>(key: K, item: T) =>
  z.object({ [key]: z.array(item), nextCursor: z.string().optional() } as { [P in K]: z.ZodArray<T> } & { nextCursor: z.ZodOptional<z.ZodString> });

export const Health = z.object({
  ok: z.boolean(),
  store: z.enum(["available", "unavailable"]),
  policyEngine: z.enum(["available", "unavailable"]).optional().describe("With ?deep=1: whether the policy engine loads and answers."),
});

export const PublicAgent = Agent.omit({ tokenVersion: true });
export const TerminatedAgent = PublicAgent.extend({ cancelledCalls: z.number().int().describe("how many calls it left waiting (for an approval or its runtime's result) were cancelled") });
export const AgentWithToken = z.object({ agent: PublicAgent, token: z.string().describe("the agent's bearer token; shown once") });
export const IssuedAnswerToken = AnswerToken.extend({ token: z.string().describe("the answering token's bearer token; shown once, never stored") });

const Tokens = { tokens: z.number().int().describe("o200k_base tokens of the definitions as an agent receives them") };
export const GroupSummary = z.object({
  id: z.string(),
  description: z.string(),
  toolCount: z.number().int(),
  tools: z.array(z.string()),
  reserved: z.boolean(),
  source: GroupSource,
  module: z.string().optional(),
  executor: z
    .object({ type: z.enum(EXECUTOR_TYPES), url: z.string().optional() })
    .nullable()
    .describe("what runs the group's tools, without its headers; null when nothing is bound, so they cannot run"),
  updatedAt: z.string(),
  ...Tokens,
});
export const GroupView = Group.omit({ executor: true })
  .extend({ toolCount: z.number().int(), executor: Executor.optional(), ...Tokens, toolTokens: z.record(z.string(), z.number().int()) })
  .extend({ warning: z.literal("duplicate_group_id").optional(), message: z.string().optional() });
export const RefreshedGroup = GroupView.extend({ added: z.array(z.string()), removed: z.array(z.string()) });

const EffectivePolicy = ToolPolicy.extend({ disabled: z.boolean() }).describe("the policy the guard applies: the tool's x-toolgate with an admin's override over it");
export const ToolSummary = z.object({
  name: z.string(),
  group: z.string(),
  description: z.string(),
  category: z.string().nullable().optional(),
  tags: z.array(z.string()),
  disabled: z.boolean(),
  policy: EffectivePolicy,
  overridden: z.boolean().describe("whether an admin's override changes a field of the tool's own policy"),
  ...Tokens,
});
export const ToolStats = z.object({ totalTools: z.number().int(), disabledTools: z.number().int(), totalTokens: z.number().int(), categories: z.record(z.string(), z.number().int()) });
export const PolicyView = z.object({ name: z.string(), group: z.string(), policy: ToolPolicy.extend({ disabled: z.boolean().optional() }), override: PolicyOverride.nullable() });
export const ToolView = PolicyView.extend({ definition: ToolDefinition });
export const PolicyChange = PolicyView.extend({ change: z.enum(["replaced", "merged"]).optional() }).loose();

export const RoleView = Role.extend({
  effectiveToolGroups: z.array(z.string()),
  toolTokens: z.number().int(),
  loadingTokens: z.object({ all: z.number().int(), search: z.number().int(), searchTools: z.number().int() }),
  notice: z.literal("default_all_tool_groups").optional(),
  message: z.string().optional(),
});

const AgentToolDefinition = z.record(z.string(), z.unknown()).describe("a tool definition in the requested API's shape");
export const AgentTools = z.object({
  agentId: z.string(),
  roleId: z.string(),
  toolGroups: z.array(z.string()),
  toolLoading: z.enum(["all", "search"]),
  format: z.enum(["openai", "anthropic", "mcp", "gemini"]),
  ...Tokens,
  tools: z.array(AgentToolDefinition),
});
const Layer = { group: z.string(), scope: z.string().describe('"system", "department:<name>" or "agent:<agentId>"') };
export const ToolLayers = z.object({
  agentId: z.string(),
  scopes: z.array(z.string()).describe("the group scopes that reach the agent, narrowest first"),
  tools: z.array(
    z.object({
      name: z.string(),
      ...Layer,
      shadows: z.array(z.object(Layer)).describe("the tools of this name in wider layers it is in front of"),
    }),
  ),
});
export const DepartmentList = z.object({
  departments: z.array(
    z.object({
      name: z.string(),
      agents: z.number().int().describe("how many of its agents are active"),
      groups: z.array(z.string()).describe("the groups of its scope (department:<name>)"),
    }),
  ),
});
export const ToolSearchResult = z.object({ agentId: z.string(), query: z.string(), tools: z.array(AgentToolDefinition) });

/** A call record as the history answers it: what it used named (a record stored without one is a tool's call). */
export const ShownCallRecord = CallRecord.extend({ kind: CallKind });
export const CallPage = page("calls", ShownCallRecord);
export const MessagePage = page("messages", Message.omit({ to: true }).loose());
export const CallAnswer = z
  .object({
    callId: z.string(),
    status: CallStatus,
    tool: z.string().optional(),
    result: z
      .unknown()
      .optional()
      .describe("a call that ran (200): its result { content, type, metadata? }, and for a tool an MCP server ran that server's whole CallToolResult as mcpResult"),
    arguments: z.record(z.string(), z.unknown()).optional(),
    startedAt: z.string().optional().describe("a waiting call (202): when it started, as recorded"),
    deadline: z.string().optional().describe("a waiting call (202): when what it waits for (an approval, the runtime's result) must have happened; the record's deadline"),
  })
  .loose();
export { CallRecord, ModuleState };

export const ModuleList = z.object({ modules: z.array(ModuleState) });
export const GroupList = z.object({ groups: z.array(GroupSummary) });
export const ToolList = z.object({ tools: z.array(ToolSummary) });
export const RoleList = z.object({ roles: z.array(RoleView) });

export const JsonRpcMessage = z.record(z.string(), z.unknown()).describe("a JSON-RPC 2.0 message of the Model Context Protocol");
export const ResourceMetadata = z.object({ resource: z.string(), resource_name: z.string(), bearer_methods_supported: z.array(z.literal("header")) });
const CallKey = z.object({
  kty: z.literal("EC"),
  crv: z.literal("P-256"),
  x: z.string().describe("the public point's x, base64url"),
  y: z.string().describe("the public point's y, base64url"),
  kid: z.string().describe("call-<period>, as a token's header names it"),
  alg: z.literal("ES256"),
  use: z.literal("sig"),
});
export const Jwks = z.object({ keys: z.array(CallKey) }).describe("a JWK Set (RFC 7517)");
export const OpenApiDocument = z.record(z.string(), z.unknown()).describe("this document");

const PolicyProblem = z.object({
  message: z.string().describe("Cedar's message"),
  help: z.string().optional(),
  start: z.number().int().optional().describe("where in the Cedar text (a character offset)"),
  end: z.number().int().optional(),
  line: z.number().int().optional(),
  column: z.number().int().optional(),
});
export const CedarPolicy = z.object({
  id: z.string(),
  version: z.number().int(),
  scope: PolicyScope,
  mode: PolicyMode,
  description: z.string().optional(),
  effect: PolicyEffect,
  cedar: z.string().describe("the policy's Cedar text (a short rule's compiled text)"),
  rule: ShortRule.optional(),
  reason: z.string().optional(),
  recoverable: z.boolean(),
  unlessAllowed: z.literal(true).optional().describe('an ask that gives way to an allow policy matching the same command or path (@unlessAllowed("true"))'),
  shipped: z.literal(true).optional().describe("shipped with toolgate"),
  createdAt: z.string(),
  updatedAt: z.string(),
  problems: z.array(PolicyProblem).describe("what makes it invalid against the catalog as it is now (it still fails closed); empty when valid"),
});
export const CedarPolicyList = z.object({ policies: z.array(CedarPolicy), revision: z.number().int().describe("the policy set's revision (the catalog version)") });
export const PolicyCheck = z.object({ valid: z.boolean(), effect: PolicyEffect.optional(), cedar: z.string(), problems: z.array(PolicyProblem) });
const Verdict = z.object({ effect: z.enum(["deny", "ask", "allow", "none"]), policies: z.array(z.string()) });
export const Simulation = z.object({
  replayed: z.number().int(),
  notReplayed: z.number().int(),
  revision: z.number().int(),
  flips: z.array(z.object({ callId: z.string(), agentId: z.string(), tool: z.string(), startedAt: z.string(), from: Verdict, to: Verdict })),
  byPolicy: z.array(z.object({ policyId: z.string(), flips: z.number().int() })),
});

const Offered = { group: z.string().describe("the group whose MCP server offers it") };
const Resource = z.looseObject({ uri: z.string().describe("toolgate://<group>/<the server's own URI>"), name: z.string(), ...Offered });
const Template = z.looseObject({ uriTemplate: z.string().describe("toolgate://<group>/<the server's own template>"), name: z.string(), ...Offered });
const Prompt = z.looseObject({ name: z.string(), description: z.string().optional(), arguments: z.array(z.looseObject({ name: z.string() })).optional(), ...Offered });

export const AgentResources = z.object({ agentId: z.string(), resources: z.array(Resource), resourceTemplates: z.array(Template) });
export const AgentPrompts = z.object({ agentId: z.string(), prompts: z.array(Prompt) });
export const ReadAnswer = z.looseObject({ callId: z.string(), contents: z.array(z.looseObject({ uri: z.string() })).describe("MCP's ReadResourceResult contents, as the server answered (its own URIs)") });
export const PromptAnswer = z.looseObject({ callId: z.string(), description: z.string().optional(), messages: z.array(z.looseObject({ role: z.string() })) });
