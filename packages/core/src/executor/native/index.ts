import { completeView, loadView } from "../../access/index";
import { grantRefusal } from "../../access/grant";
import type { Grant } from "../../access/grant";
import * as Agent from "../../agent/index";
import type { TokenSigner } from "../../agent/token";
import type { RoleCache } from "../../role/cache";
import * as Artifact from "../../artifact/index";
import type { Db } from "../../dynamo/client";
import { agentSpawned } from "../../events/index";
import type { EventPublisher } from "../../events/publisher";
import type { Catalog } from "../../group/catalog";
import { builtinGroups } from "../../group/builtin";
import { createId } from "../../id";
import { parseOr } from "../../validation";
import * as Message from "../../message/index";
import * as Role from "../../role/index";
import { builtinParameters } from "../../tool/builtin-parameters";
import type { BuiltinArguments, BuiltinToolName } from "../../tool/builtin-parameters";
import type { z } from "zod";
import { jsonResult, Tool } from "../../tool/tool";
import { metaParameters, metaTool, SEARCH_TOOLS } from "../../search/meta-tools";
import { searchVisible } from "../../search/visible";
import type { ToolContext, ToolInfo, ToolResult } from "../../tool/tool";

export type NativeServices = {
  db: Db;
  catalog: Catalog;
  roles: RoleCache;
  tokens: TokenSigner;
  events: EventPublisher;
  now: () => string;
  /** How long a client-executed call waits for its runtime's result: how far back a termination looks for such calls. */
  resultWaitMs: number;
};

const descriptionOf = (name: string) =>
  builtinGroups()
    .flatMap((group) => group.tools)
    .find((tool) => tool.function.name === name)?.function.description ?? name;

/** What a spawned agent needs before it acts: toolgate records it, but running it is a runtime's job. */
export const howItStarts = (agentId: string) =>
  `The agent ${agentId} exists but nothing runs it yet: its runtime needs a token, which an admin issues with POST /agents/${agentId}/token, or it is started by a runtime listening for the agent.spawned event.`;

/** A native tool: its name, schema and description are the built-in definition's, so agents see exactly what runs. */
function native<Name extends BuiltinToolName>(name: Name, execute: (context: ToolContext<BuiltinArguments<Name>>) => Promise<ToolResult>) {
  const parameters = builtinParameters()[name] as unknown as z.ZodType<BuiltinArguments<Name>>;
  return Tool.define({ name, description: descriptionOf(name), parameters, execute });
}

/** org_management, artifact and search_tools, run inside toolgate on behalf of the calling agent. */
export function nativeTools(services: NativeServices): ReadonlyMap<string, ToolInfo> {
  const { db, catalog, roles, tokens, events, now, resultWaitMs } = services;
  const registry = new Map<string, ToolInfo>();
  const register = (tool: ToolInfo) => registry.set(tool.name, tool);
  const roleView = async (role: Role.Role) => Role.view(role, await catalog.current());
  /** Refuses (403 cannot_grant_groups) when the calling agent would hand out groups its own role does not have. */
  const checkGrant = async (agentId: string, grant: Grant) => {
    const caller = await completeView({ db, catalog, roles }, await loadView({ db, catalog, roles }, await Agent.get(db, agentId), "fresh"));
    const refusal = grantRefusal(caller.access, grant);
    if (refusal) throw refusal;
  };
  const spawnable = async (agentId: string, roleId: string) => {
    const role = await Role.get(db, roleId).catch(() => undefined);
    if (role) await checkGrant(agentId, { kind: "spawn_agent", toolGroups: role.id === Role.ROOT_ROLE_ID ? [...Role.ROOT_TOOL_GROUPS] : role.toolGroups });
  };

  register(native("find_role_by_name", async ({ input }) => jsonResult(await roleView(await Role.getByName(db, input.name)))));
  register(
    native("create_role", async ({ input, sessionID }) => {
      await checkGrant(sessionID, { kind: "create_role", toolGroups: input.toolGroups ?? null });
      const role = parseOr(Role.RoleInput, input, Role.ROLE_ERRORS, "invalid_role", "The role");
      return jsonResult((await Role.create(db, catalog, role, sessionID, now(), events)).role);
    }),
  );
  register(
    native("spawn_agent", async ({ input, sessionID }) => {
      await spawnable(sessionID, input.roleId);
      const { agent } = await Agent.create(db, tokens, parseOr(Agent.AgentInput, input, Agent.AGENT_ERRORS, "invalid_agent", "The agent"), sessionID, now(), events);
      return jsonResult({ agentId: agent.id, start: howItStarts(agent.id) });
    }),
  );
  register(
    native("spawn_agent_with_task", async ({ input, sessionID }) => {
      const { task, ...agentInput } = input;
      await spawnable(sessionID, input.roleId);
      const { agent } = await Agent.create(db, tokens, parseOr(Agent.AgentInput, agentInput, Agent.AGENT_ERRORS, "invalid_agent", "The agent"), sessionID, now());
      const message = await Message.deliver(db, { messageId: createId("msg"), to: agent.id, from: sessionID, content: task, createdAt: now() });
      await events.publish(agentSpawned(agent, { task, messageId: message.messageId }));
      return jsonResult({ agentId: agent.id, messageId: message.messageId, start: howItStarts(agent.id) });
    }),
  );
  register(
    native("terminate_agent", async ({ input }) => {
      const { agent, cancelledCalls } = await Agent.terminate(db, input.agentId, now(), resultWaitMs, events);
      return jsonResult({ agentId: agent.id, status: agent.status, cancelledCalls });
    }),
  );
  register(
    native("send_message", async ({ input, sessionID }) => {
      const message = await Message.send(db, sessionID, input.to, input.content, now());
      return jsonResult({ messageId: message.messageId });
    }),
  );
  register(
    Tool.define({
      name: SEARCH_TOOLS,
      description: metaTool(SEARCH_TOOLS)!.function.description,
      parameters: metaParameters()[SEARCH_TOOLS],
      execute: async ({ input, sessionID }) => {
        const { access } = await loadView({ db, catalog, roles }, await Agent.get(db, sessionID), "cached");
        return jsonResult({ query: input.query, tools: searchVisible(access, { q: input.query, limit: input.limit }) });
      },
    }),
  );
  register(
    native("put_artifact", async ({ input, sessionID }) => {
      const artifact = await Artifact.put(db, input, sessionID, now());
      return jsonResult({ artifactId: artifact.artifactId });
    }),
  );
  register(
    native("get_artifact", async ({ input }): Promise<ToolResult> => {
      const { artifactId, name, mimeType, content } = await Artifact.get(db, input.artifactId);
      return jsonResult({ artifactId, name, mimeType, content });
    }),
  );
  return registry;
}
