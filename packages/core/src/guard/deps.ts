import type { AgentCache } from "../agent/cache";
import type { ArgumentSeal } from "../call/seal";
import type { Db } from "../dynamo/client";
import type { EventPublisher } from "../events/publisher";
import type { CallSigner, Natives, SecretSource } from "../executor/index";
import type { Catalog } from "../group/catalog";
import type { RoleCache } from "../role/cache";
import type { GuardStates } from "./caches";
import type { GuardSettings } from "./settings";

/** What the guard works with: the storage boundary, the per-process caches, the native tools, where secrets come from, the call signer, settings, the argument seal and where its events go. */
export type GuardDeps = {
  db: Db;
  catalog: Catalog;
  roles: RoleCache;
  agents: AgentCache;
  states: GuardStates;
  natives: Natives;
  secrets: SecretSource;
  signer: CallSigner;
  settings: GuardSettings;
  seal: ArgumentSeal;
  events: EventPublisher;
};
