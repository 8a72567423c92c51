import { defineTool } from "@toolgate/module/tool";
import * as z from "zod";
import * as Agent from "../agent/index";
import { agentSpawned } from "../events/index";
import { createId } from "../id";
import * as Message from "../message/index";
import * as Role from "../role/index";
import { parseOr } from "../validation";
import { AgentId, AgentName, LongText, RoleId } from "./fields";
import { checkGrant, checkSpawnable } from "./grants";
import type { BuiltinGroup } from "./group";
import type { NativeContext } from "./native";

/** What a spawned agent needs before it acts: toolgate records it, but running it is a runtime's job. */
export const howItStarts = (agentId: string) =>
  `The agent ${agentId} exists but nothing runs it yet: its runtime needs a token, which an admin issues with POST /agents/${agentId}/token, or it is started by a runtime listening for the agent.spawned event.`;

const NewAgentName = AgentName.optional().describe("Optional display name for the new agent, e.g. \"reviewer-1\".");
const SpawnRoleId = RoleId.describe("Id of the role the new agent takes (from find_role_by_name or create_role).");

export const findRoleByName = defineTool({
  name: "find_role_by_name",
  description:
    "Look up an existing role by its exact name. Returns the role as JSON (id, name, rolePrompt, toolGroups, status) or an error if no role has that name. Use it before create_role to reuse a role that already exists, and to get the roleId that spawn_agent needs.",
  parameters: z.strictObject({
    name: z.string().min(1).max(100).describe("Exact name of the role to look up, e.g. \"frontend developer\"."),
  }),
  execute: async ({ name }, { db, catalog }: NativeContext) => Role.view(await Role.getByName(db, name), await catalog.current()),
});

export const createRole = defineTool({
  name: "create_role",
  description:
    "Create a new role that agents can be spawned into. Returns the new role as JSON, including its id. " +
    "Choose toolGroups deliberately: list only the tool groups the role's work needs (built-in groups are org_management, artifact, workspace, command, network, context and console; deployed modules may add more). " +
    "Omitting toolGroups gives the role every group, including ones registered later, so leave it out only when the role truly needs everything. " +
    "Fails if the name is already taken or a group id is unknown.",
  parameters: z.strictObject({
    name: z.string().min(1).max(100).describe("Unique, human-readable role name, e.g. \"data analyst\"."),
    rolePrompt: LongText.describe(
      "System prompt every agent of this role receives: its responsibilities, how it should work and what it must hand back.",
    ),
    toolGroups: z
      .array(z.string().min(1).max(64).describe("A tool group id, e.g. \"workspace\"."))
      .max(64)
      .optional()
      .describe(
        "Ids of the tool groups the role's agents may use. List only the groups the role's work needs; omitting this field gives the role every group, including ones registered later.",
      ),
  }),
  execute: async (input, ctx: NativeContext) => {
    await checkGrant(ctx, { kind: "create_role", toolGroups: input.toolGroups ?? null });
    const role = parseOr(Role.RoleInput, input, Role.ROLE_ERRORS, "invalid_role", "The role");
    return (await Role.create(ctx.db, ctx.catalog, role, ctx.agentId, ctx.now(), ctx.events)).role;
  },
});

export const spawnAgent = defineTool({
  name: "spawn_agent",
  description:
    "Start a new agent in the given role. Returns { agentId }. The agent waits idle until it receives a message, so follow up with send_message, or use spawn_agent_with_task to start it with work straight away.",
  parameters: z.strictObject({ roleId: SpawnRoleId, name: NewAgentName }),
  execute: async (input, ctx: NativeContext) => {
    await checkSpawnable(ctx, input.roleId);
    const agentInput = parseOr(Agent.AgentInput, input, Agent.AGENT_ERRORS, "invalid_agent", "The agent");
    const { agent } = await Agent.create(ctx.db, ctx.tokens, agentInput, ctx.agentId, ctx.now(), ctx.events);
    return { agentId: agent.id, start: howItStarts(agent.id) };
  },
});

export const spawnAgentWithTask = defineTool({
  name: "spawn_agent_with_task",
  description:
    "Start a new agent in the given role and hand it a task. Returns { agentId }; the task arrives as the new agent's first message, so it starts working immediately. Prefer this over spawn_agent followed by send_message.",
  parameters: z.strictObject({
    roleId: SpawnRoleId,
    task: LongText.describe(
      "The task for the new agent, written so it can act on it alone: goal, inputs, constraints and what to report back.",
    ),
    name: NewAgentName,
  }),
  execute: async ({ task, ...input }, ctx: NativeContext) => {
    await checkSpawnable(ctx, input.roleId);
    const agentInput = parseOr(Agent.AgentInput, input, Agent.AGENT_ERRORS, "invalid_agent", "The agent");
    const { agent } = await Agent.create(ctx.db, ctx.tokens, agentInput, ctx.agentId, ctx.now());
    const message = await Message.deliver(ctx.db, { messageId: createId("msg"), to: agent.id, from: ctx.agentId, content: task, createdAt: ctx.now() });
    await ctx.events.publish(agentSpawned(agent, { task, messageId: message.messageId }));
    return { agentId: agent.id, messageId: message.messageId, start: howItStarts(agent.id) };
  },
});

export const terminateAgent = defineTool({
  name: "terminate_agent",
  description:
    "Terminate an agent you no longer need. It stops working and can make no further tool calls; this cannot be undone. Returns a confirmation, or an error if the agent does not exist.",
  parameters: z.strictObject({
    agentId: AgentId.describe("Id of the agent to terminate (as returned by spawn_agent or spawn_agent_with_task)."),
  }),
  execute: async (input, { db, now, resultWaitMs, events }: NativeContext) => {
    const { agent, cancelledCalls } = await Agent.terminate(db, input.agentId, now(), resultWaitMs, events);
    return { agentId: agent.id, status: agent.status, cancelledCalls };
  },
});

export const sendMessage = defineTool({
  name: "send_message",
  description:
    "Send a text message to another agent, delivered to its inbox in order. Returns { messageId }. Use it to give an agent instructions, answer its questions or pass on results.",
  parameters: z.strictObject({
    to: AgentId.describe("Id of the agent that receives the message."),
    content: LongText.describe("The message text."),
  }),
  execute: async ({ to, content }, { db, agentId, now }: NativeContext) => ({ messageId: (await Message.send(db, agentId, to, content, now())).messageId }),
});

export const orgManagementGroup: BuiltinGroup<"org_management"> = {
  id: "org_management",
  description: "Organise the team: find and create roles, start and stop agents, and message them.",
  executor: { type: "native" },
  tools: [findRoleByName, createRole, spawnAgent, spawnAgentWithTask, terminateAgent, sendMessage],
};
