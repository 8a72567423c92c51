import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, expect, test } from "vitest";
import { Client } from "@modelcontextprotocol/client";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import type { Toolgate } from "@toolgate/core/toolgate";
import { api, testToolgate, tool } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { serveToolgate } from "../support/http-server";
import type { ServedToolgate } from "../support/http-server";
import { startConformanceUpstream } from "../support/conformance-upstream";
import { startResourcesUpstream } from "../support/resources-upstream";
import { agentWithGroups, putGroup, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;
let served: ServedToolgate;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  toolgate = await testToolgate({ mcp: { streams: true } });
  request = api(toolgate);
  served = await serveToolgate(toolgate);
});

afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  await served.close();
});

const README = "file:///docs/readme.md";
const KEYS = "file:///secrets/keys.txt";

/**
 * A group served by an upstream of its own (its resources imported; the upstream counts the listens it holds), an agent
 * whose role has it, and one whose role has another group.
 */
async function offeringGroup() {
  const upstream = await startResourcesUpstream();
  closers.push(() => upstream.close());
  const id = unique("docs");
  const toolPrefix = `s${randomUUID().slice(0, 6)}`;
  await putGroup(request, id, { description: "Docs.", executor: { type: "mcp", url: upstream.url, toolPrefix } });
  const other = unique("other");
  await putGroup(request, other, { description: "Something else.", tools: [tool(`${toolPrefix}_other`)], executor: { type: "http", url: "http://127.0.0.1:9/" } });
  const [withGroup, without] = await Promise.all([agentWithGroups(request, [id]), agentWithGroups(request, [other])]);
  return { id, other, upstream, withGroup, without, uri: (upstreamUri: string) => `toolgate://${id}/${upstreamUri}` };
}

/** What arrives on a client's streams, in order, and a way to wait for the next one that matches. */
function inbox() {
  const received: Array<{ method: string; params?: Record<string, unknown> }> = [];
  const waiters: Array<() => void> = [];
  return {
    received,
    push(notification: { method: string; params?: Record<string, unknown> }) {
      received.push(notification);
      waiters.splice(0).forEach((wake) => wake());
    },
    async until(method: string, uri?: string) {
      const matches = () => received.find((entry) => entry.method === method && (uri === undefined || entry.params?.uri === uri));
      while (!matches()) await new Promise<void>((wake) => waiters.push(wake));
      return matches()!;
    },
    count: (method: string) => received.filter((entry) => entry.method === method).length,
  };
}

async function replaceGroup(id: string, body: Record<string, unknown>) {
  const replaced = await request("PUT", `/groups/${id}`, { body });
  expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
}

const NOTIFICATIONS = ["notifications/resources/updated", "notifications/tools/list_changed", "notifications/resources/list_changed", "notifications/prompts/list_changed"];

/**
 * A 2025-era client (the v1 SDK) with a session: its transport opens the session's own stream (GET /mcp) after the
 * handshake, which `streamOpen` waits for (its fetch sees toolgate answer the GET).
 */
async function sessionClient(token: string) {
  const notes = inbox();
  let opened!: () => void;
  const streamOpen = new Promise<void>((resolve) => (opened = resolve));
  const observed: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (init?.method === "GET" && response.status === 200) opened();
    return response;
  };
  const client = new V1Client({ name: "subscriptions-test", version: "1.0.0" });
  client.fallbackNotificationHandler = async (notification) => {
    if (NOTIFICATIONS.includes(notification.method)) notes.push(notification as { method: string; params?: Record<string, unknown> });
  };
  const transport = new V1Transport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } }, fetch: observed });
  await client.connect(transport);
  closers.push(() => client.close());
  await streamOpen;
  return { client, notes, subscribe: (uri: string) => client.subscribeResource({ uri }), unsubscribe: (uri: string) => client.unsubscribeResource({ uri }) };
}

/** A 2026-07-28 client (the v2 SDK), whose notifications arrive on its listens. */
async function modernClient(token: string) {
  const notes = inbox();
  const client = new Client({ name: "subscriptions-test", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  for (const method of NOTIFICATIONS) client.setNotificationHandler(method as "notifications/resources/updated", async (notification) => notes.push(notification));
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  closers.push(() => client.close());
  return { client, notes };
}

test("resources/subscribe - a 2025-era session subscribed to a URI it may read receives its update on its own stream, under toolgate's URI", async () => {
  const { withGroup, upstream, uri } = await offeringGroup();
  const capabilities = (await sessionClient(withGroup.token)).client.getServerCapabilities();
  expect(capabilities).toMatchObject({ resources: { subscribe: true, listChanged: true }, tools: { listChanged: true }, prompts: { listChanged: true } });

  const session = await sessionClient(withGroup.token);
  expect(await session.subscribe(uri(README))).toEqual({});
  expect(upstream.listening(README)).toBe(1);
  upstream.updated(README);
  expect(await session.notes.until("notifications/resources/updated", uri(README))).toMatchObject({ method: "notifications/resources/updated", params: { uri: uri(README) } });
  await session.unsubscribe(uri(README));
  await upstream.untilListening(README, 0);
});

test("resources/subscribe - an agent whose role lacks the group is refused as a read is (-32602, tool_not_available), and nothing is subscribed upstream", async () => {
  const { without, upstream, uri } = await offeringGroup();
  const session = await sessionClient(without.token);
  const refused = await session.subscribe(uri(KEYS)).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(refused).toBeInstanceOf(McpError);
  expect(refused).toMatchObject({ code: -32602, data: { code: "tool_not_available", recoverable: false } });
  expect(upstream.listening(KEYS)).toBe(0);
});

test("resources/unsubscribe - stops the URI's updates: toolgate's upstream subscription to it ends, another URI's go on", async () => {
  const { withGroup, upstream, uri } = await offeringGroup();
  const session = await sessionClient(withGroup.token);
  await session.subscribe(uri(README));
  await session.subscribe(uri(KEYS));
  await session.unsubscribe(uri(README));
  await upstream.untilListening(README, 0);
  upstream.updated(README);
  upstream.updated(KEYS);
  await session.notes.until("notifications/resources/updated", uri(KEYS));
  expect(session.notes.received.filter((note) => note.params?.uri === uri(README))).toEqual([]);
  await session.unsubscribe(uri(KEYS));
  await upstream.untilListening(KEYS, 0);
});

test("role change - removing the group from the agent's role announces its lists changed and releases its subscriptions upstream", async () => {
  const { withGroup, other, upstream, uri } = await offeringGroup();
  const session = await sessionClient(withGroup.token);
  await session.subscribe(uri(README));
  expect(upstream.listening(README)).toBe(1);

  const changed = await request("PATCH", `/roles/${withGroup.role.id}`, { body: { toolGroups: [other] } });
  expect(changed.status, JSON.stringify(changed.body)).toBe(200);
  await session.notes.until("notifications/tools/list_changed");
  await session.notes.until("notifications/resources/list_changed");
  await session.notes.until("notifications/prompts/list_changed");
  await upstream.untilListening(README, 0);
});

test("catalog change - a tool added to a group is announced (tools/list_changed) to an agent with that group, never to an agent without it", async () => {
  const prefix = `c${randomUUID().slice(0, 6)}`;
  const [mine, theirs] = [unique("mine"), unique("theirs")];
  const executor = { type: "http", url: "http://127.0.0.1:9/" };
  await putGroup(request, mine, { description: "Mine.", tools: [tool(`${prefix}_one`)], executor });
  await putGroup(request, theirs, { description: "Theirs.", tools: [tool(`${prefix}_three`)], executor });
  const [withMine, withTheirs] = await Promise.all([agentWithGroups(request, [mine]), agentWithGroups(request, [theirs])]);
  const [a, b] = await Promise.all([sessionClient(withMine.token), sessionClient(withTheirs.token)]);

  await replaceGroup(mine, { description: "Mine.", tools: [tool(`${prefix}_one`), tool(`${prefix}_two`)], executor });
  await a.notes.until("notifications/tools/list_changed");
  // B's stream was open through that change too: its one announcement below is for its own group's change.
  await replaceGroup(theirs, { description: "Theirs.", tools: [tool(`${prefix}_three`), tool(`${prefix}_four`)], executor });
  await b.notes.until("notifications/tools/list_changed");
  expect(b.notes.count("notifications/tools/list_changed")).toBe(1);
  expect(a.notes.count("notifications/tools/list_changed")).toBe(1);
  expect(a.notes.count("notifications/resources/list_changed") + b.notes.count("notifications/resources/list_changed")).toBe(0);
});

test("GET /mcp - closing the session's stream releases its subscriptions upstream", async () => {
  const { withGroup, upstream, uri } = await offeringGroup();
  const session = await sessionClient(withGroup.token);
  await session.subscribe(uri(README));
  expect(upstream.listening(README)).toBe(1);
  await session.client.close();
  await upstream.untilListening(README, 0);
});

test("subscriptions/listen - a 2026-07-28 listen is honoured only for what the agent may read, receives its updates, and releases them when closed", async () => {
  const { withGroup, id, upstream, uri } = await offeringGroup();
  const { client, notes } = await modernClient(withGroup.token);
  const foreign = `toolgate://${unique("nothere")}/${README}`;
  const listen = await client.listen({ toolsListChanged: true, resourceSubscriptions: [uri(KEYS), foreign] });
  expect(listen.honoredFilter).toEqual({ toolsListChanged: true, resourceSubscriptions: [uri(KEYS)] });
  expect(upstream.listening(KEYS)).toBe(1);
  upstream.updated(KEYS);
  expect((await notes.until("notifications/resources/updated", uri(KEYS))).params?.uri).toBe(`toolgate://${id}/${KEYS}`);
  await listen.close();
  await upstream.untilListening(KEYS, 0);
});

test("resources/subscribe - a 2026-07-28 server that offers subscriptions only to 2025-era sessions (as the v2 SDK's servers may) is subscribed on a 2025-era session of toolgate's own", async () => {
  const upstream = await startConformanceUpstream([], { modern: true });
  closers.push(() => upstream.close());
  const id = unique("watched");
  await putGroup(request, id, { description: "Watched.", executor: { type: "mcp", url: upstream.url, toolPrefix: `w${randomUUID().slice(0, 6)}` } });
  const agent = await agentWithGroups(request, [id]);
  const watched = "test://watched-resource";

  const session = await sessionClient(agent.token);
  expect(await session.subscribe(watched)).toEqual({});
  expect([...upstream.subscribed!]).toEqual([watched]);
  const { client } = await modernClient(agent.token);
  const listen = await client.listen({ resourceSubscriptions: [`toolgate://${id}/${watched}`] });
  expect(listen.honoredFilter.resourceSubscriptions).toEqual([`toolgate://${id}/${watched}`]);

  await session.unsubscribe(watched);
  expect([...upstream.subscribed!]).toEqual([watched]);
  await listen.close();
  // The listen is let go as toolgate sees its stream end; its last release unsubscribes upstream.
  while (upstream.subscribed!.size > 0) await sleep(20);
});
