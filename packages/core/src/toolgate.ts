import { Resource } from "sst";
import { AgentCache } from "./agent/cache";
import * as Agent from "./agent/index";
import { TokenSigner } from "./agent/token";
import { ArgumentSeal } from "./call/seal";
import { cleanup } from "./cleanup";
import { createDb } from "./dynamo/client";
import type { Db, DbOptions } from "./dynamo/client";
import { CallSigner, defaultSecrets } from "./executor/index";
import type { Natives, SecretSource } from "./executor/index";
import { guardSettings, linkedBus, mcpSettings, storeOptions } from "./environment";
import { BusPublisher, noEvents } from "./events/publisher";
import type { EventPublisher } from "./events/publisher";
import { Catalog } from "./group/catalog";
import { ensureBuiltins } from "./group/ensure-builtins";
import { nativeRunner } from "./builtin/run";
import { GuardStates } from "./guard/caches";
import type { GuardDeps } from "./guard/index";
import { DEFAULT_GUARD_SETTINGS } from "./guard/settings";
import type { GuardSettings } from "./guard/settings";
import { StoreHealth } from "./health";
import { DEFAULT_MCP_SETTINGS } from "./mcp/schema";
import type { McpSettings } from "./mcp/schema";
import { RoleCache } from "./role/cache";
import * as Role from "./role/index";

export type Config = GuardSettings & {
  adminToken: string;
  signingKey: string;
};

export type ToolgateOptions = DbOptions &
  Partial<Config> &
  Pick<Config, "adminToken" | "signingKey"> & { mcp?: Partial<McpSettings>; events?: EventPublisher };

/** The composition root: the storage boundary, the per-process caches, token signing and settings, wired once per process. */
export class Toolgate {
  readonly db: Db;
  readonly catalog: Catalog;
  readonly tokens: TokenSigner;
  /** Signs the token every request to an executor carries, and publishes its public keys. */
  readonly signer: CallSigner;
  readonly config: Config;
  readonly roles: RoleCache;
  readonly agents: AgentCache;
  readonly states = new GuardStates();
  readonly natives: Natives;
  /** Named secrets for executor headers, read at call time (by default TOOLGATE_SECRET_<name>, then a linked SST secret). */
  readonly secrets: SecretSource;
  readonly seal: ArgumentSeal;
  readonly health: StoreHealth;
  readonly mcp: McpSettings;
  /** Where toolgate's own events go (the bus; none unless given). */
  readonly events: EventPublisher;
  private readonly adminDigest: Buffer;
  private starting: Promise<void> | undefined;

  constructor(options: ToolgateOptions & { secrets?: SecretSource }) {
    if (options.adminToken.length < 16) throw new Error("The admin token must be at least 16 characters long.");
    this.db = createDb(options);
    this.events = options.events ?? noEvents;
    this.catalog = new Catalog(this.db, this.events);
    this.config = {
      ...DEFAULT_GUARD_SETTINGS,
      ...Object.fromEntries(Object.entries(options).filter(([key, value]) => key in DEFAULT_GUARD_SETTINGS && value !== undefined)),
      adminToken: options.adminToken,
      signingKey: options.signingKey,
    };
    this.tokens = new TokenSigner(options.signingKey, this.config.agentTokenDays);
    this.signer = new CallSigner(options.signingKey);
    this.roles = new RoleCache(this.db);
    this.agents = new AgentCache(this.db);
    this.seal = new ArgumentSeal(options.signingKey);
    this.health = new StoreHealth(this.db);
    this.mcp = { ...DEFAULT_MCP_SETTINGS, ...options.mcp };
    this.adminDigest = Agent.digest(options.adminToken);
    this.secrets = options.secrets ?? defaultSecrets();
    this.natives = nativeRunner({ db: this.db, catalog: this.catalog, roles: this.roles, tokens: this.tokens, events: this.events, now: () => this.now(), resultWaitMs: this.config.clientResultTimeoutMs });
  }

  get guard(): GuardDeps {
    const { db, catalog, roles, agents, states, natives, secrets, signer, config: settings, seal, events } = this;
    return { db, catalog, roles, agents, states, natives, secrets, signer, settings, seal, events };
  }

  get auth(): Agent.AuthDeps {
    return { db: this.db, tokens: this.tokens, agents: this.agents, adminDigest: this.adminDigest };
  }

  now() {
    return new Date().toISOString();
  }

  /** Registers the built-in groups, the root role and the root agent, once per process (cold start). */
  ready(): Promise<void> {
    this.starting ??= this.start().catch((error) => {
      this.starting = undefined;
      throw error;
    });
    return this.starting;
  }

  /** Settles lapsed calls and deletes expired records. */
  cleanup(now = new Date()) {
    return cleanup(this.db, now);
  }

  /** Forgets everything cached and registers the built-ins again: for a store that lost its data (an in-memory DynamoDB Local restarted). */
  async reset(): Promise<void> {
    this.catalog.invalidate();
    this.roles.clear();
    this.agents.clear();
    this.states.clear();
    this.starting = undefined;
    await this.ready();
  }

  private async start() {
    const now = this.now();
    await Promise.all([ensureBuiltins(this.db, this.catalog, now), Role.ensureRoot(this.db, now), Agent.ensureRoot(this.db, now)]);
  }
}

let fromResource: Toolgate | undefined;

/** The process-wide instance configured from SST's linked resources (set as SST_RESOURCE_* locally) and the environment. */
export function toolgate(): Toolgate {
  fromResource ??= new Toolgate({
    ...storeOptions(),
    ...guardSettings(),
    mcp: mcpSettings(),
    events: new BusPublisher(linkedBus()),
    adminToken: Resource.AdminToken.value,
    signingKey: Resource.SigningKey.value,
  });
  return fromResource;
}
