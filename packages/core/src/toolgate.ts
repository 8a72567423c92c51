import { Resource } from "sst";
import { ArgumentSeal } from "./call/seal";
import { createDb, DEFAULT_STORE_SETTINGS } from "./dynamo/client";
import type { Db, DbOptions } from "./dynamo/client";
import { Catalog } from "./group/catalog";
import { ensureBuiltins } from "./group/ensure-builtins";
import * as Role from "./role/index";
import * as Agent from "./agent/index";
import { TokenSigner } from "./agent/token";
import { nativeTools } from "./executor/native/index";
import { GuardCaches } from "./guard/caches";
import { StoreHealth } from "./health";
import type { GuardDeps } from "./guard/index";
import { DEFAULT_GUARD_SETTINGS } from "./guard/settings";
import type { GuardSettings } from "./guard/settings";
import type { ToolRegistry } from "./tool/registry";

export type Config = GuardSettings & {
  adminToken: string;
  signingKey: string;
};

export type ToolgateOptions = DbOptions & Partial<Config> & Pick<Config, "adminToken" | "signingKey">;

/** Everything a handler needs: the storage boundary, the cached catalog, token signing and settings. */
export class Toolgate {
  readonly db: Db;
  readonly catalog: Catalog;
  readonly tokens: TokenSigner;
  readonly config: Config;
  readonly caches: GuardCaches;
  readonly natives: ToolRegistry;
  readonly seal: ArgumentSeal;
  readonly health: StoreHealth;
  private starting: Promise<void> | undefined;

  constructor(options: ToolgateOptions) {
    if (options.adminToken.length < 16) throw new Error("The admin token must be at least 16 characters long.");
    this.db = createDb(options);
    this.catalog = new Catalog(this.db);
    this.tokens = new TokenSigner(options.signingKey);
    this.config = {
      ...DEFAULT_GUARD_SETTINGS,
      ...Object.fromEntries(Object.entries(options).filter(([key, value]) => key in DEFAULT_GUARD_SETTINGS && value !== undefined)),
      adminToken: options.adminToken,
      signingKey: options.signingKey,
    };
    this.caches = new GuardCaches(this.db);
    this.seal = new ArgumentSeal(options.signingKey);
    this.health = new StoreHealth(this.db);
    this.natives = nativeTools({ db: this.db, catalog: this.catalog, tokens: this.tokens, now: () => this.now() });
  }

  get guard(): GuardDeps {
    return { db: this.db, catalog: this.catalog, caches: this.caches, natives: this.natives, settings: this.config, seal: this.seal };
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

  /** Forgets everything cached and registers the built-ins again: for a store that lost its data (an in-memory DynamoDB Local restarted). */
  async reset(): Promise<void> {
    this.catalog.invalidate();
    this.caches.clear();
    this.starting = undefined;
    await this.ready();
  }

  private async start() {
    const now = this.now();
    await ensureBuiltins(this.db, this.catalog, now);
    await Role.ensureRoot(this.db, now);
    await Agent.ensureRoot(this.db, now);
  }
}

const positiveNumber = (value: string | undefined, fallback: number) => {
  const parsed = Number(value);
  return value !== undefined && Number.isFinite(parsed) && parsed > 0 ? parsed : fallback;
};

let fromResource: Toolgate | undefined;

/** The process-wide instance configured from SST's linked resources (set as SST_RESOURCE_* locally). */
export function toolgate(): Toolgate {
  fromResource ??= new Toolgate({
    table: Resource.Table.name,
    adminToken: Resource.AdminToken.value,
    signingKey: Resource.SigningKey.value,
    endpoint: process.env.TOOLGATE_DYNAMODB_ENDPOINT || undefined,
    requestTimeoutMs: positiveNumber(process.env.TOOLGATE_DYNAMODB_TIMEOUT_MS, DEFAULT_STORE_SETTINGS.requestTimeoutMs),
    maxAttempts: positiveNumber(process.env.TOOLGATE_DYNAMODB_MAX_ATTEMPTS, DEFAULT_STORE_SETTINGS.maxAttempts),
    contentionDeadlineMs: positiveNumber(process.env.TOOLGATE_CONTENTION_DEADLINE_MS, DEFAULT_STORE_SETTINGS.contentionDeadlineMs),
    callRetentionDays: positiveNumber(process.env.TOOLGATE_CALL_RETENTION_DAYS, DEFAULT_GUARD_SETTINGS.callRetentionDays),
    defaultTimeoutMs: positiveNumber(process.env.TOOLGATE_DEFAULT_TIMEOUT_MS, DEFAULT_GUARD_SETTINGS.defaultTimeoutMs),
    doomLoopThreshold: positiveNumber(process.env.TOOLGATE_DOOM_LOOP_THRESHOLD, DEFAULT_GUARD_SETTINGS.doomLoopThreshold),
    confirmationTimeoutMs: positiveNumber(process.env.TOOLGATE_CONFIRMATION_TIMEOUT_MS, DEFAULT_GUARD_SETTINGS.confirmationTimeoutMs),
    clientResultTimeoutMs: positiveNumber(process.env.TOOLGATE_CLIENT_RESULT_TIMEOUT_MS, DEFAULT_GUARD_SETTINGS.clientResultTimeoutMs),
  });
  return fromResource;
}
