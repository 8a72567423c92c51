import { createMcpHandler } from "@modelcontextprotocol/server";
import type { AuthInfo, McpServerFactory, ServerEvent, ServerEventBus } from "@modelcontextprotocol/server";
import * as z from "zod";
import type { Agent } from "../agent/schema";
import { freshView } from "../guard/index";
import type { GuardDeps } from "../guard/index";
import { closeStream, openStream, TooManyStreamsError } from "./streams";
import type { AgentStream, ListKind, StreamNotification } from "./streams";
import { MAX_SUBSCRIPTIONS_PER_STREAM, readDecision, subscribe } from "./subscriptions";

const ListenFilter = z.looseObject({
  toolsListChanged: z.boolean().optional(),
  promptsListChanged: z.boolean().optional(),
  resourcesListChanged: z.boolean().optional(),
  resourceSubscriptions: z.array(z.string()).optional(),
});
const ListenRequest = z.looseObject({ id: z.union([z.string(), z.number()]), params: z.looseObject({ notifications: ListenFilter }) });
type ListenRequest = z.infer<typeof ListenRequest>;

export const isListen = (body: unknown) => (body as { method?: unknown } | null)?.method === "subscriptions/listen";

const refusal = (id: ListenRequest["id"], code: number, message: string) => Response.json({ jsonrpc: "2.0", id, error: { code, message } }, { status: 200 });

function eventOf({ method, params }: StreamNotification): ServerEvent {
  if (method === "notifications/resources/updated") return { kind: "resource_updated", uri: String(params?.uri) };
  if (method === "notifications/tools/list_changed") return { kind: "tools_list_changed" };
  if (method === "notifications/prompts/list_changed") return { kind: "prompts_list_changed" };
  return { kind: "resources_list_changed" };
}

function listsOf(filter: z.infer<typeof ListenFilter>): Set<ListKind> {
  const lists = new Set<ListKind>();
  if (filter.toolsListChanged) lists.add("tools");
  if (filter.promptsListChanged) lists.add("prompts");
  if (filter.resourcesListChanged) lists.add("resources");
  return lists;
}

/** The URIs of the filter the agent may read and the group's server accepted a subscription to: the rest is not honoured. */
async function subscribeAll(stream: AgentStream, uris: readonly string[]): Promise<string[]> {
  if (uris.length === 0) return [];
  const { access } = await freshView(stream.deps, stream.agent);
  const outcomes = await Promise.allSettled(uris.map(async (uri) => subscribe(stream, readDecision(access, uri), uri)));
  return uris.filter((uri, index) => outcomes[index]!.status === "fulfilled" && stream.subscriptions.has(uri));
}

/**
 * A 2026-07-28 `subscriptions/listen` of one agent: served by the SDK's listen router on a bus of this stream alone
 * (the SDK's own bus is one per handler, shared by every caller, so each listen gets a handler of its own), fed only
 * what this agent may see: its lists' changes, and the updates of the resources of its filter it may read (the others
 * are left out of the filter before the SDK acknowledges it, so the acknowledgement says what is honoured).
 */
export async function serveListen(request: Request, body: unknown, deps: GuardDeps, agent: Agent, factory: McpServerFactory, authInfo: AuthInfo): Promise<Response | undefined> {
  const parsed = ListenRequest.safeParse(body);
  if (!parsed.success) return undefined;
  const listen = parsed.data;
  const filter = listen.params.notifications;
  const asked = [...new Set(filter.resourceSubscriptions ?? [])];
  if (asked.length > MAX_SUBSCRIPTIONS_PER_STREAM) return refusal(listen.id, -32602, `A listen may subscribe to at most ${MAX_SUBSCRIPTIONS_PER_STREAM} resources; ${asked.length} were asked.`);

  let deliver: ((event: ServerEvent) => void) | undefined;
  const bus: ServerEventBus = {
    publish: () => {},
    subscribe: (listener) => {
      deliver = listener;
      return () => closeStream(stream);
    },
  };
  const handler = createMcpHandler(factory, { legacy: "reject", bus, maxSubscriptions: 1 });
  const stream: AgentStream = {
    deps,
    agent,
    lists: listsOf(filter),
    subscriptions: new Map(),
    send: (notification) => deliver?.(eventOf(notification)),
    end: () => void handler.close(),
  };
  try {
    openStream(stream);
  } catch (error) {
    if (error instanceof TooManyStreamsError) return refusal(listen.id, -32603, error.message);
    throw error;
  }
  try {
    const honoured = await subscribeAll(stream, asked);
    const { resourceSubscriptions: _asked, ...lists } = filter;
    const notifications = honoured.length > 0 ? { ...lists, resourceSubscriptions: honoured } : lists;
    const response = await handler.fetch(request, { authInfo, parsedBody: { ...listen, params: { ...listen.params, notifications } } });
    if (!deliver) closeStream(stream);
    return response;
  } catch (error) {
    closeStream(stream);
    throw error;
  }
}
