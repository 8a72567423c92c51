import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import type { JWTVerifyGetKey } from "jose";
import { sendModuleEvent } from "./bus.js";
import type { Bus } from "./bus.js";
import { ModuleEventType } from "./events.js";
import type { IncomingMessage, ServerResponse } from "node:http";
import { CALL_TOKEN_HEADER, toolgateKeys } from "./call-token.js";
import { answerCall, NOT_POST } from "./calls.js";
import { deleteGroup, putGroup, toolgateAt } from "./group-api.js";
import type { McpEndpoint, McpOptions } from "./mcp.js";
import { nodeListener } from "./node.js";
import { processReplayStore } from "./replay.js";
import type { ReplayStore } from "./replay.js";
import type { ModuleTool } from "./tool.js";

export type ModuleSpec = {
  /** The group's id in toolgate. */
  id: string;
  description: string;
  tools: ModuleTool[];
  /** `system` (the default), `department:<name>` or `agent:<id>`, as on PUT /groups/:id. */
  scope?: string;
  /** Where toolgate is, to fetch the keys its calls are signed with (default: TOOLGATE_URL); or the keys themselves. */
  toolgate?: { url?: string; keys?: JWTVerifyGetKey };
  /** The module's URL as toolgate calls it, which its tokens are issued for; by default the URL a request arrived at. */
  url?: string;
  /**
   * Where the ids of the tokens it accepted are kept until they expire, so that a token sent again is refused: by
   * default this process's memory; on Lambda, whose containers each have their own, `dynamoReplayStore()`
   * (`@toolgate/module/replay-dynamo`).
   */
  replayStore?: ReplayStore;
};

/** The group as toolgate registers it; `version` is a hash of all of it, so the same tools give the same version. */
export type GroupDefinition = { id: string; description: string; scope?: string; tools: ModuleTool["definition"][]; version: string };

/**
 * Who registers the module: an admin of the toolgate at `toolgateUrl` (default: the module's own toolgate URL, or
 * TOOLGATE_URL), through its API; or a deploy step, through toolgate's bus (module events, ordered by `version`: by
 * default the time of sending, so each deployment is newer than the last).
 */
export type Registrar = ({ adminToken: string; toolgateUrl?: string } | { bus: Bus; version?: number }) & {
  /** Where toolgate calls the module, when the module's own `url` is not it (or it has none: on Lambda, the function URL). */
  url?: string;
};

export type Module = {
  id: string;
  /** Answers toolgate's calls (its http executor format): a web-standard handler, for Hono on Node, a Lambda, or anything that speaks Request and Response. */
  fetch(request: Request): Promise<Response>;
  definitions(): GroupDefinition;
  /**
   * Registers the module's group with toolgate, its executor the module's URL: PUT /groups/:id, or a module.loaded
   * event on the bus (toolgate changes nothing when the group it brings is already registered as it is).
   */
  announce(registrar: Registrar): Promise<void>;
  /** Removes the module's group from toolgate: DELETE /groups/:id (a group already gone is fine), or a module.unloaded event. */
  withdraw(registrar: Registrar): Promise<void>;
  /**
   * The same tools as an MCP server over Streamable HTTP, for any MCP client, or for toolgate as an `mcp` executor.
   * Loaded on first use, so a module that never serves MCP does not load the MCP SDK.
   */
  mcp(options?: McpOptions): McpEndpoint;
  /** The same as `fetch`, as a `node:http` request listener (`http.createServer(module.node())`): no web Request or Response is built. */
  node(): (request: IncomingMessage, response: ServerResponse) => void;
};

/**
 * A module: its tools served to toolgate, every request checked first. A request without a token toolgate signed for
 * this module and this very call (its id, agent, tool and arguments), or with one already used, is 401 and runs nothing.
 */
export function defineModule(spec: ModuleSpec): Module {
  const tools = new Map(spec.tools.map((tool) => [tool.name, tool]));
  if (tools.size !== spec.tools.length) throw new Error(`The module "${spec.id}" names a tool twice.`);
  let keys = spec.toolgate?.keys;
  const keysNow = () => (keys ??= toolgateKeys(toolgateAt(spec.id, spec.toolgate?.url, "give defineModule toolgate.url, or set TOOLGATE_URL.")));
  const replayStore = spec.replayStore ?? processReplayStore;
  const calls = { id: spec.id, tools, keys: keysNow, replayStore };
  let definitions: GroupDefinition | undefined;
  const definitionsOf = () => {
    if (definitions) return definitions;
    const content = { id: spec.id, description: spec.description, ...(spec.scope ? { scope: spec.scope } : {}), tools: spec.tools.map((tool) => tool.definition) };
    const version = createHash("sha256").update(canonicalize(content) ?? "").digest("base64url").slice(0, 22);
    return (definitions = { ...content, version });
  };
  const toolgateUrl = (registrar: { toolgateUrl?: string }) => toolgateAt(spec.id, registrar.toolgateUrl ?? spec.toolgate?.url, "give a toolgateUrl, or set TOOLGATE_URL.");

  return {
    id: spec.id,
    async fetch(request) {
      const { status, body } = request.method !== "POST" ? NOT_POST : await answerCall(calls, await request.text(), request.headers.get(CALL_TOKEN_HEADER), spec.url ?? request.url.split("?")[0]!);
      return Response.json(body, { status });
    },
    node: () => nodeListener(calls, spec.url),
    async announce(registrar) {
      const url = registrar.url ?? spec.url;
      if (!url) throw new Error(`The module "${spec.id}" cannot be announced without its url (where toolgate calls it).`);
      const { id: _id, version: _version, ...group } = definitionsOf();
      const executor = { type: "http", url };
      if ("bus" in registrar)
        return sendModuleEvent(registrar.bus, ModuleEventType.Loaded, { module: spec.id, version: registrar.version ?? Date.now(), ...group, executor });
      await putGroup(spec.id, toolgateUrl(registrar), registrar.adminToken, { ...group, executor });
    },
    async withdraw(registrar) {
      if ("bus" in registrar) return sendModuleEvent(registrar.bus, ModuleEventType.Unloaded, { module: spec.id, version: registrar.version ?? Date.now() });
      await deleteGroup(spec.id, toolgateUrl(registrar), registrar.adminToken);
    },
    definitions: definitionsOf,
    mcp(options = {}) {
      let endpoint: Promise<McpEndpoint> | undefined;
      const served = () =>
        (endpoint ??= import("./mcp-server.js").then(({ mcpEndpoint }) =>
          mcpEndpoint({ id: spec.id, version: definitionsOf().version, tools, keys: keysNow, replayStore }, options),
        ));
      return {
        fetch: async (request) => (await served()).fetch(request),
        close: async () => {
          if (endpoint) await (await endpoint).close();
        },
      };
    },
  };
}
