import type { ModuleTool } from "@toolgate/module/tool";
import type { TokenSigner } from "../agent/token";
import type { Db } from "../dynamo/client";
import type { EventPublisher } from "../events/publisher";
import type { Catalog } from "../group/catalog";
import type { RoleCache } from "../role/cache";

/** toolgate's services its own tools work with. */
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

/** What a tool toolgate runs itself is given besides its input: the services, the call, the calling agent, and a signal aborted at the call's timeout. */
export type NativeContext = NativeServices & { callId: string; agentId: string; signal: AbortSignal };

export type NativeTool = ModuleTool<NativeContext>;
