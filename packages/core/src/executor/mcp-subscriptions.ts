// Resource subscriptions upstream: reached only through mcp/subscriptions.ts's lazy import, like the executor itself.
import { createHash } from "node:crypto";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { McpSubscription } from "@modelcontextprotocol/client";
import { scrubText } from "../call/redact";
import { ToolgateError } from "../error";
import { executorError } from "./errors";
import { resolveHeaders } from "./secrets";
import type { SecretSource } from "./secrets";
import type { McpExecutor } from "./schema";

const CLIENT_INFO = { name: "toolgate-subscriptions", version: "1.0.0" };
/** How long the server may take to accept a subscription. */
const SUBSCRIBE_TIMEOUT_MS = 10_000;
/** How long before a 2026-07-28 listen the server ended is opened again, while someone still wants its URI. */
const RELISTEN_DELAY_MS = 1_000;

/** Told the server's own URI each time the server says it was updated. */
export type UpstreamUpdated = (upstreamUri: string) => void;
/** One subscriber's hold on a URI watched upstream; the last release unsubscribes there. */
export type UpstreamLease = { release(): void };

/** One URI watched upstream, and who in this process wants its updates. */
type Watched = { listeners: Set<UpstreamUpdated>; ready: Promise<void>; stop(): Promise<void> };

/**
 * A group's own subscription connection: its own session (2025-era; one `resources/subscribe` per URI) or its own
 * listens (2026-07-28; one `subscriptions/listen` per URI), and beside those a 2025-era session when the server
 * honours a listen for none of them; never a pooled call connection, whose session belongs to the call it serves.
 * Kept while any URI is watched, closed with the last.
 */
type Feed = { key: string; url: URL; headers: Record<string, string>; where: string; secrets: string[]; clients: Client[]; connected: Promise<Client>; session2025?: Promise<Client>; watched: Map<string, Watched> };

const feeds = new Map<string, Feed>();

const keyOf = (groupId: string, url: string, headers: Record<string, string>) =>
  createHash("sha256").update(JSON.stringify([groupId, url, Object.entries(headers).sort(([a], [b]) => a.localeCompare(b))])).digest("base64url");

const logError = (message: string) => console.error(JSON.stringify({ level: "error", area: "mcp-subscriptions", error: message }));

const notSubscribable = (feed: Feed) =>
  executorError("executor_failed", `The MCP server ${feed.where} does not offer resource subscriptions (its capabilities do not declare resources.subscribe).`, { recoverable: false });

const failedUpstream = (feed: Feed, error: unknown) =>
  executorError("executor_failed", `The MCP server ${feed.where} refused or failed the subscription: ${scrubText(error instanceof Error ? error.message : String(error), feed.secrets)}.`, {
    recoverable: true,
  });

/** A client of the feed's server, its updates told to whoever watches their URI. */
function connectClient(feed: Feed, mode: "auto" | "legacy"): Promise<Client> {
  const client = new Client(CLIENT_INFO, { versionNegotiation: { mode } });
  client.setNotificationHandler("notifications/resources/updated", async ({ params }) => {
    for (const listener of feed.watched.get(params.uri)?.listeners ?? []) listener(params.uri);
  });
  feed.clients.push(client);
  return client.connect(new StreamableHTTPClientTransport(feed.url, { requestInit: { headers: feed.headers } })).then(() => client);
}

function openFeed(key: string, url: URL, headers: Record<string, string>, secrets: string[]): Feed {
  const feed: Feed = { key, url, headers, where: `at ${url.origin}`, secrets, clients: [], connected: undefined!, watched: new Map() };
  feed.connected = connectClient(feed, "auto");
  feeds.set(key, feed);
  return feed;
}

/** Closes the feed's connections once its last unsubscribes have been answered (a closed connection would cut them off). */
function closeFeed(feed: Feed, unsubscribed: Promise<unknown> = Promise.resolve()) {
  if (feeds.get(feed.key) === feed) feeds.delete(feed.key);
  void unsubscribed.finally(() => Promise.allSettled(feed.clients.map((client) => client.close())));
}

/** A 2026-07-28 listen for one URI, opened again while its URI is still watched when the server ends it. */
async function listenFor(feed: Feed, client: Client, uri: string, watched: Watched): Promise<{ close(): void }> {
  let current: McpSubscription = await client.listen({ resourceSubscriptions: [uri] }, { timeout: SUBSCRIBE_TIMEOUT_MS });
  if (!current.honoredFilter.resourceSubscriptions?.includes(uri)) {
    void current.close();
    throw notSubscribable(feed);
  }
  let stopped = false;
  const keep = (subscription: McpSubscription) =>
    void subscription.closed.then((how) => {
      if (stopped || how === "local" || feed.watched.get(uri) !== watched) return;
      setTimeout(() => {
        if (stopped) return;
        client.listen({ resourceSubscriptions: [uri] }, { timeout: SUBSCRIBE_TIMEOUT_MS }).then(
          (again) => ((current = again), stopped ? void again.close() : keep(again)),
          (error: unknown) => logError(`could not listen again for ${uri} ${feed.where}: ${error instanceof Error ? error.message : String(error)}`),
        );
      }, RELISTEN_DELAY_MS).unref();
    });
  keep(current);
  return {
    close: () => {
      stopped = true;
      void current.close();
    },
  };
}

/** A 2025-era subscription (`resources/subscribe`) on the client's session, if its server declares subscriptions. */
async function subscribe2025(feed: Feed, client: Client, uri: string): Promise<() => Promise<void>> {
  if (!client.getServerCapabilities()?.resources?.subscribe) throw notSubscribable(feed);
  await client.subscribeResource({ uri }, { timeout: SUBSCRIBE_TIMEOUT_MS });
  return () => client.unsubscribeResource({ uri }, { timeout: SUBSCRIBE_TIMEOUT_MS }).then(() => {}, () => {});
}

/**
 * A 2026-07-28 server that honours no listen for the URI may still offer subscriptions to 2025-era sessions (the v2
 * SDK's servers do): the feed opens one such session of its own, once, and subscribes there.
 */
async function subscribeOn2025Session(feed: Feed, uri: string, unhonoured: unknown): Promise<() => Promise<void>> {
  const client = await (feed.session2025 ??= connectClient(feed, "legacy")).catch(() => undefined);
  if (!client?.getServerCapabilities()?.resources?.subscribe) throw unhonoured;
  return subscribe2025(feed, client, uri);
}

/** Subscribes upstream to one URI, in the way the server's era has. */
function watch(feed: Feed, uri: string): Watched {
  let stopUpstream: () => Promise<void> = async () => {};
  const watched: Watched = { listeners: new Set(), ready: undefined!, stop: () => stopUpstream() };
  watched.ready = feed.connected.then(
    async (client) => {
      try {
        if (client.getProtocolEra() !== "modern") return void (stopUpstream = await subscribe2025(feed, client, uri));
        const listening = await listenFor(feed, client, uri, watched).catch((unhonoured: unknown) => subscribeOn2025Session(feed, uri, unhonoured));
        stopUpstream = typeof listening === "function" ? listening : async () => listening.close();
      } catch (error) {
        throw error instanceof ToolgateError ? error : failedUpstream(feed, error);
      }
    },
    (error: unknown) => {
      throw failedUpstream(feed, error);
    },
  );
  return watched;
}

function unwatch(feed: Feed, uri: string, watched: Watched) {
  if (feed.watched.get(uri) !== watched) return;
  feed.watched.delete(uri);
  const stopped = watched.stop();
  if (feed.watched.size === 0) closeFeed(feed, stopped);
}

/**
 * Watches a URI of the group's server for this subscriber: `updated` is told each `notifications/resources/updated`
 * for it. The first subscriber in this process subscribes upstream (answered once the server accepted it); the last
 * release unsubscribes there, and closes the group's subscription connection when it watches nothing else.
 */
export async function watchUpstream(groupId: string, executor: McpExecutor, upstreamUri: string, source: SecretSource, updated: UpstreamUpdated): Promise<UpstreamLease> {
  const url = new URL(executor.url);
  const { headers, secrets } = await resolveHeaders(executor.headers, source, url.origin);
  const key = keyOf(groupId, url.href, headers);
  const feed = feeds.get(key) ?? openFeed(key, url, headers, secrets);
  const watched = feed.watched.get(upstreamUri) ?? feed.watched.set(upstreamUri, watch(feed, upstreamUri)).get(upstreamUri)!;
  const listener: UpstreamUpdated = (uri) => updated(uri);
  watched.listeners.add(listener);
  const release = () => {
    if (watched.listeners.delete(listener) && watched.listeners.size === 0) unwatch(feed, upstreamUri, watched);
  };
  try {
    await watched.ready;
  } catch (error) {
    release();
    unwatch(feed, upstreamUri, watched);
    throw error;
  }
  return { release };
}

/** Closes every subscription connection (shutdown). */
export function closeUpstreamSubscriptions() {
  for (const feed of [...feeds.values()]) {
    for (const watched of feed.watched.values()) void watched.stop();
    feed.watched.clear();
    closeFeed(feed);
  }
}
