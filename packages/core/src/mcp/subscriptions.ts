import type { Access } from "../access/index";
import { executorError } from "../executor/errors";
import { decideOffer } from "../offer/index";
import type { OfferDecision } from "../offer/index";
import { relayUpdate } from "./streams";
import type { AgentStream } from "./streams";

type ReadAllowed = Extract<OfferDecision, { allowed: true }>;

/** Resources one stream (a session's, or a listen's) may be subscribed to at once. */
export const MAX_SUBSCRIPTIONS_PER_STREAM = 32;

let loading: Promise<typeof import("../executor/mcp-subscriptions")> | undefined;
/** The upstream side (and the SDK's client) load on the first subscription, not at a cold start. */
const loadUpstream = () => (loading ??= import("../executor/mcp-subscriptions"));

export class TooManySubscriptionsError extends Error {
  constructor() {
    super(`A stream may hold at most ${MAX_SUBSCRIPTIONS_PER_STREAM} resource subscriptions; unsubscribe from one before subscribing to another.`);
  }
}

const notRelayable = (uri: string, group: string) =>
  executorError("executor_failed", `The resource "${uri}" cannot be subscribed to: the group "${group}" is not served by an MCP server over HTTP, so toolgate has no subscription to relay.`, {
    recoverable: false,
  });

/** The decision to read a URI (decideOffer): its refusal (tool_not_available, ambiguous_resource) is thrown. */
export function readDecision(access: Access, uri: string): ReadAllowed {
  const decision = decideOffer(access, { kind: "resource", uri });
  if (!decision.allowed) throw decision.error;
  return decision;
}

/**
 * Subscribes the stream to a resource the agent may read (its readDecision), once the group's server accepted the
 * subscription upstream; subscribing again is a no-op.
 */
export async function subscribe(stream: AgentStream, decision: ReadAllowed, uri: string): Promise<void> {
  if (stream.subscriptions.has(uri)) return;
  if (stream.subscriptions.size >= MAX_SUBSCRIPTIONS_PER_STREAM) throw new TooManySubscriptionsError();
  const executor = decision.group.executor;
  if (executor?.type !== "mcp") throw notRelayable(uri, decision.group.id);
  const lease = await (await loadUpstream()).watchUpstream(decision.group.id, executor, decision.upstream, stream.deps.secrets, () => void relayUpdate(stream, uri));
  if (stream.closed || stream.subscriptions.has(uri) || stream.subscriptions.size >= MAX_SUBSCRIPTIONS_PER_STREAM) return lease.release();
  stream.subscriptions.set(uri, lease);
}

/** Ends the stream's subscription to a URI, if it has one; the last subscriber in this process unsubscribes upstream. */
export function unsubscribe(stream: AgentStream, uri: string): void {
  stream.subscriptions.get(uri)?.release();
  stream.subscriptions.delete(uri);
}

/** Closes the upstream side's connections (shutdown), if it was ever loaded. */
export async function closeSubscriptions(): Promise<void> {
  if (loading) (await loading).closeUpstreamSubscriptions();
}
