import { createHash } from "node:crypto";
import type { View } from "../access/index";
import type { Agent } from "../agent/schema";
import { ToolgateError } from "../error";
import { freshView, isCallerRefusal } from "../guard/index";
import type { GuardDeps } from "../guard/index";
import { decideOffer, listedOffers } from "../offer/index";
import { mcpTools } from "./tools";

/** A notification toolgate sends on an agent's stream. */
export type StreamNotification = { method: string; params?: Record<string, unknown> };

/** Which of an agent's lists a stream is told have changed. */
export type ListKind = "tools" | "resources" | "prompts";

/** A resource a stream subscribed to, under the agent's URI, and its hold on the URI watched upstream. */
export type Subscription = { release(): void };

/**
 * One open stream of an agent in this process, over which toolgate tells it what changed: a 2025-era session's own
 * stream (GET /mcp) or a 2026-07-28 `subscriptions/listen`. Its subscriptions live here, with it, and go with it.
 */
export type AgentStream = {
  deps: GuardDeps;
  agent: Agent;
  lists: ReadonlySet<ListKind>;
  subscriptions: Map<string, Subscription>;
  /** Set once the stream is closed: a subscription that lands after that is released at once. */
  closed?: boolean;
  send(notification: StreamNotification): void;
  /** Ends the stream from toolgate's side (shutdown, a revoked token); its subscriptions are released. */
  end(): void;
};

/** Open streams (and sessions waiting for theirs) an agent may have in one process. */
export const MAX_STREAMS_PER_AGENT = 8;
/** How often the agents with open streams are looked at for a change of what they may see. */
const WATCH_INTERVAL_MS = 1_000;

export class TooManyStreamsError extends Error {
  constructor(agentId: string) {
    super(`The agent ${agentId} already has ${MAX_STREAMS_PER_AGENT} open MCP streams on this instance; close one (or its session) before opening another.`);
  }
}

/** What the agent may see, each list as one digest: a change of any list is seen as a change of its digest. */
type Listing = Record<ListKind, string>;

const digest = (value: unknown) => createHash("sha256").update(JSON.stringify(value)).digest("base64url");

function listingOf(view: View): Listing {
  const offers = listedOffers(view.access);
  return { tools: digest(mcpTools(view)), resources: digest([offers.resources, offers.resourceTemplates]), prompts: digest(offers.prompts) };
}

const LIST_CHANGED: Record<ListKind, string> = {
  tools: "notifications/tools/list_changed",
  resources: "notifications/resources/list_changed",
  prompts: "notifications/prompts/list_changed",
};

/** Everything an agent's lists are decided from: the catalog's version, its role's and its own record. */
const basisOf = ({ version, access }: View) => JSON.stringify([version, access.role.id, access.role.version, access.agent]);

const streamsOf = new Map<string, Set<AgentStream>>();
/** What each agent with a stream saw last, and its basis: while that holds, its lists are not computed again. */
const listings = new Map<string, { basis: string; listing: Listing }>();
let watching: NodeJS.Timeout | undefined;

const logError = (message: string) => console.error(JSON.stringify({ level: "error", area: "mcp-streams", error: message }));

/** Registers a stream of the agent, refused past MAX_STREAMS_PER_AGENT; what the agent sees now is its baseline. */
export function openStream(stream: AgentStream): void {
  const streams = streamsOf.get(stream.agent.id) ?? new Set<AgentStream>();
  if (streams.size >= MAX_STREAMS_PER_AGENT) throw new TooManyStreamsError(stream.agent.id);
  streams.add(stream);
  streamsOf.set(stream.agent.id, streams);
  if (streams.size === 1) void lookAt(stream.agent.id);
  watching ??= setTimeout(watch, WATCH_INTERVAL_MS).unref();
}

/** Forgets a stream and releases its subscriptions; the agent's baseline goes with its last stream. */
export function closeStream(stream: AgentStream): void {
  stream.closed = true;
  for (const subscription of stream.subscriptions.values()) subscription.release();
  stream.subscriptions.clear();
  const streams = streamsOf.get(stream.agent.id);
  if (!streams?.delete(stream) || streams.size > 0) return;
  streamsOf.delete(stream.agent.id);
  listings.delete(stream.agent.id);
}

/** How many streams this process holds open, and their subscriptions (tests, diagnostics). */
export const openStreams = () => {
  const all = [...streamsOf.values()].flatMap((streams) => [...streams]);
  return { streams: all.length, subscriptions: all.reduce((count, stream) => count + stream.subscriptions.size, 0) };
};

/** Ends every stream (shutdown): each releases its subscriptions, and the watch stops. */
export function closeMcpStreams(): void {
  for (const streams of [...streamsOf.values()]) for (const stream of [...streams]) stream.end();
  clearTimeout(watching);
  watching = undefined;
}

async function watch() {
  try {
    await Promise.all([...streamsOf.keys()].map(lookAt));
  } finally {
    watching = streamsOf.size > 0 ? setTimeout(watch, WATCH_INTERVAL_MS).unref() : undefined;
  }
}

/**
 * What the agent may see now, against what it saw: each list that changed is announced on every stream that wants it,
 * and each subscription to a URI it may no longer read is released. An agent whose token was revoked (or that was
 * terminated) has its streams ended.
 */
async function lookAt(agentId: string): Promise<void> {
  const streams = streamsOf.get(agentId);
  const some = streams?.values().next().value;
  if (!streams || !some) return;
  let view: View;
  try {
    view = await freshView(some.deps, some.agent);
  } catch (error) {
    if (error instanceof ToolgateError && isCallerRefusal(error)) for (const stream of [...streams]) stream.end();
    else logError(`could not read what the agent ${agentId} may see: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  if (streamsOf.get(agentId) !== streams) return;
  const basis = basisOf(view);
  const before = listings.get(agentId);
  const now = before?.basis === basis ? before.listing : listingOf(view);
  listings.set(agentId, { basis, listing: now });
  const changed = before ? (Object.keys(now) as ListKind[]).filter((kind) => now[kind] !== before.listing[kind]) : [];
  for (const stream of streams) {
    for (const kind of changed) if (stream.lists.has(kind)) stream.send({ method: LIST_CHANGED[kind] });
    for (const [uri, subscription] of stream.subscriptions)
      if (!decideOffer(view.access, { kind: "resource", uri }).allowed) {
        subscription.release();
        stream.subscriptions.delete(uri);
      }
  }
}

/** A URI's update, sent on the stream only if the agent may still read it (decided again now). */
export async function relayUpdate(stream: AgentStream, uri: string): Promise<void> {
  try {
    const view = await freshView(stream.deps, stream.agent);
    if (stream.subscriptions.has(uri) && decideOffer(view.access, { kind: "resource", uri }).allowed) stream.send({ method: "notifications/resources/updated", params: { uri } });
  } catch (error) {
    if (!(error instanceof ToolgateError)) logError(`could not relay an update of ${uri}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
