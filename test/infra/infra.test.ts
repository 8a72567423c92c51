// Runs sst.config.ts against a recording stand-in for the `sst` and `$config`
// globals, so the test needs neither the SST platform, Pulumi, AWS nor a network.
// The argument types themselves are checked by `npm run typecheck:infra`.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TABLE } from "../../packages/core/src/dynamo/table";
import { MODULE_EVENTS_PATTERN } from "../../packages/core/src/module/events";
import { APPROVALS_PATTERN } from "../../packages/core/src/events/types";
import { ROUTES } from "../../packages/functions/src/routes";

const ROOT = join(import.meta.dirname, "..", "..");
const API_GATEWAY_CAP_SECONDS = 30;

type Args = Record<string, unknown>;

interface Created {
  kind: string;
  name: string;
  args: Args;
}

interface Subscription {
  name: string;
  subscriber: Args;
  args: Args;
}

interface Route {
  route: string;
  handler: unknown;
}

const created: Created[] = [];
const routes: Route[] = [];
const subscriptions: Subscription[] = [];
const streamSubscriptions: Subscription[] = [];

function component(kind: string) {
  return class {
    readonly name: string;
    readonly args: Args;
    constructor(name: string, args: Args = {}) {
      this.name = name;
      this.args = args;
      created.push({ kind, name, args });
    }
  };
}

const arnOf = (functionName: string) => `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`;

class FakeFunction extends component("sst.aws.Function") {
  get arn() {
    return arnOf(this.name);
  }
}

class FakeApi extends component("sst.aws.ApiGatewayV2") {
  readonly url = "https://api.example.test";
  route(route: string, handler: unknown) {
    routes.push({ route, handler });
  }
}

class FakeDynamo extends component("sst.aws.Dynamo") {
  subscribe(name: string, subscriber: Args, args: Args = {}) {
    streamSubscriptions.push({ name, subscriber, args });
  }
}

class FakeBus extends component("sst.aws.Bus") {
  subscribe(name: string, subscriber: Args, args: Args = {}) {
    subscriptions.push({ name, subscriber, args });
  }
}

const fakeSst = {
  Secret: component("sst.sst.Secret"),
  aws: {
    Dynamo: FakeDynamo,
    Bus: FakeBus,
    ApiGatewayV2: FakeApi,
    Function: FakeFunction,
    CronV2: component("sst.aws.CronV2"),
  },
};

interface AppConfig {
  app(input: { stage: string }): Args;
  run(): Promise<Record<string, unknown>>;
}

let config: AppConfig;
let outputs: Record<string, unknown>;

/** A deploy that lets modules' MCP headers name one SST secret. */
const MODULE_SECRET = "GithubToken";

/** A deploy with one optional subscriber of toolgate's events: approvals POSTed to a webhook, as the README shows. */
const APPROVALS_RULE = { name: "ApprovalsToChat", pattern: APPROVALS_PATTERN, webhook: "https://hooks.example.test/toolgate" };
/** Another deploy's rule, evaluated on its own: every call's end POSTed to a webhook. */
const SETTLED_RULE = { name: "CallsToWarehouse", pattern: { source: ["toolgate"], detailType: ["call.settled"] }, webhook: "https://hooks.example.test/calls" };

beforeAll(async () => {
  process.env.TOOLGATE_MODULE_SECRETS = ` ${MODULE_SECRET} `;
  process.env.TOOLGATE_EVENT_RULES = JSON.stringify([APPROVALS_RULE]);
  Object.assign(globalThis, { sst: fakeSst, $config: (c: AppConfig) => c });
  // A computed specifier keeps tsc (root tsconfig) from following it into infra/, which needs SST's globals.
  const mod = (await import(pathToFileURL(join(ROOT, "sst.config.ts")).href)) as { default: AppConfig };
  config = mod.default;
  outputs = await config.run();
});

afterAll(() => {
  delete process.env.TOOLGATE_MODULE_SECRETS;
  delete process.env.TOOLGATE_EVENT_RULES;
});

function one(kind: string, name: string): Created {
  const matches = created.filter((c) => c.kind === kind && c.name === name);
  expect(matches, `${kind} "${name}"`).toHaveLength(1);
  return matches[0]!;
}

function seconds(duration: unknown): number {
  const match = /^(\d+) (second|seconds|minute|minutes)$/.exec(String(duration));
  if (!match) throw new Error(`unreadable duration ${String(duration)}`);
  return Number(match[1]) * (match[2]!.startsWith("minute") ? 60 : 1);
}

function handlerFile(handler: string): { file: string | undefined; exportName: string } {
  const dot = handler.lastIndexOf(".");
  const base = handler.slice(0, dot);
  const exportName = handler.slice(dot + 1);
  const file = [".ts", ".tsx", ".mts", ".js", ".mjs"].map((ext) => base + ext).find((f) => existsSync(join(ROOT, f)));
  return { file, exportName };
}

function exportsName(source: string, name: string): boolean {
  const declared = new RegExp(`export\\s+(const|let|var|(async\\s+)?function\\*?)\\s+${name}\\b`);
  const listed = new RegExp(`export\\s*\\{[^}]*\\b${name}\\s*(,|\\})`);
  return declared.test(source) || listed.test(source);
}

const API_FUNCTIONS = {
  groups: "GroupsFunction",
  roles: "RolesFunction",
  execution: "ExecutionFunction",
} as const satisfies Record<keyof typeof ROUTES, string>;

describe("sst.config.ts", () => {
  it("app - production retains and protects, other stages are removable", () => {
    expect(config.app({ stage: "production" })).toEqual({ name: "toolgate", removal: "retain", protect: true, home: "aws" });
    expect(config.app({ stage: "dev" })).toEqual({ name: "toolgate", removal: "remove", protect: false, home: "aws" });
  });

  it("run - outputs the api url, table name and bus name", () => {
    expect(outputs).toEqual({ api: "https://api.example.test", table: "Table", bus: "Bus" });
  });

  it("run - top-level component names are unique ignoring case and avoid the reserved App", () => {
    const names = created.map((c) => c.name.toLowerCase());
    expect(new Set(names).size).toBe(names.length);
    expect(names).not.toContain("app");
  });

  it("run - declares the two secrets, and one per name in TOOLGATE_MODULE_SECRETS", () => {
    one("sst.sst.Secret", "AdminToken");
    one("sst.sst.Secret", "SigningKey");
    one("sst.sst.Secret", MODULE_SECRET);
  });
});

describe("infra/storage.ts", () => {
  it("table - is built from the single TABLE definition", () => {
    expect(one("sst.aws.Dynamo", "Table").args).toEqual({ ...TABLE });
  });

  it("table - with no rule subscribing to call.settled, nothing reads its stream (a deployment pays nothing for it)", () => {
    expect(TABLE.stream).toBe("new-and-old-images");
    expect(streamSubscriptions).toEqual([]);
  });

  it("table - once a rule subscribes to call.settled, its stream feeds one subscriber that publishes it, for call items only, linked to the bus alone", async () => {
    const recorded = [created.length, subscriptions.length, streamSubscriptions.length] as const;
    process.env.TOOLGATE_EVENT_RULES = JSON.stringify([APPROVALS_RULE, SETTLED_RULE]);
    let added: Subscription[];
    try {
      // The same file evaluated again under another deploy's rules (the query makes it a module of its own); what it
      // records is taken out again, so the other tests see the first deploy alone.
      await import(pathToFileURL(join(ROOT, "infra", "bus.ts")).href + "?settled");
    } finally {
      process.env.TOOLGATE_EVENT_RULES = JSON.stringify([APPROVALS_RULE]);
      created.splice(recorded[0]);
      subscriptions.splice(recorded[1]);
      added = streamSubscriptions.splice(recorded[2]);
    }
    expect(added.map((s) => s.name)).toEqual(["CallEvents"]);
    const [calls] = added;
    expect(calls!.subscriber.handler).toBe("packages/functions/src/event/calls.handler");
    const { file, exportName } = handlerFile("packages/functions/src/event/calls.handler");
    expect(exportsName(readFileSync(join(ROOT, file!), "utf8"), exportName)).toBe(true);
    expect((calls!.subscriber.link as { name: string }[]).map((l) => l.name)).toEqual(["Bus"]);
    expect(calls!.subscriber.environment).toEqual({ TOOLGATE_CALL_EVENT_TYPES: "call.awaiting_confirmation,question.asked,call.settled" });
    expect(calls!.args.filters).toEqual([{ dynamodb: { Keys: { sk: { S: [{ prefix: "CALL#" }] } } } }]);
  });

  it("table - every index key is a declared field", () => {
    const keys = [TABLE.primaryIndex, ...Object.values(TABLE.globalIndexes)].flatMap((i) => [i.hashKey, i.rangeKey]);
    for (const key of keys) expect(Object.keys(TABLE.fields)).toContain(key);
  });
});

describe("infra/bus.ts", () => {
  it("bus - the ModuleEvents subscription with the shared pattern, then one per rule of TOOLGATE_EVENT_RULES", () => {
    one("sst.aws.Bus", "Bus");
    expect(subscriptions.map((s) => s.name)).toEqual(["ModuleEvents", APPROVALS_RULE.name]);
    const [subscription] = subscriptions;
    expect(subscription!.args).toEqual({ pattern: MODULE_EVENTS_PATTERN });
    expect(subscription!.subscriber.handler).toBe("packages/functions/src/event/modules.handler");
  });

  it("bus - the subscriber is linked to the table, the bus (for group.changed), both secrets and the modules' secrets, whose names it is told", () => {
    const link = subscriptions[0]!.subscriber.link as unknown[];
    const linked = link.map((l) => (l as { name: string }).name).sort();
    expect(linked).toEqual(["AdminToken", "Bus", MODULE_SECRET, "SigningKey", "Table"].sort());
    expect(subscriptions[0]!.subscriber.environment).toEqual({ TOOLGATE_MODULE_SECRETS: MODULE_SECRET });
  });

  it("bus - a rule's subscriber POSTs the events its pattern matches to its webhook, and is linked to nothing", () => {
    const rule = subscriptions.find((s) => s.name === APPROVALS_RULE.name)!;
    expect(rule.args).toEqual({ pattern: APPROVALS_PATTERN });
    expect(rule.subscriber.handler).toBe("packages/functions/src/event/webhook.handler");
    expect(rule.subscriber.environment).toEqual({ TOOLGATE_WEBHOOK_URL: APPROVALS_RULE.webhook });
    expect(rule.subscriber.link).toBeUndefined();
  });
});

describe("infra/api.ts", () => {
  const ROUTE = /^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|ANY) (\/|(\/([A-Za-z0-9._-]+|\{[A-Za-z][A-Za-z0-9]*\}|\{proxy\+\}))+)$/;
  const all = Object.values(ROUTES).flat();

  it("routes - every route is well-formed API Gateway syntax", () => {
    for (const route of all) {
      expect(route, route).toMatch(ROUTE);
      expect(route.includes("{proxy+}") ? route.endsWith("{proxy+}") : true, route).toBe(true);
    }
  });

  it("routes - no method and path is declared twice", () => {
    expect(new Set(all).size).toBe(all.length);
  });

  it("routes - a path parameter keeps one name at a given position", () => {
    const names = new Map<string, string>();
    for (const route of all) {
      const segments = route.split(" ")[1]!.split("/");
      segments.forEach((segment, i) => {
        if (!segment.startsWith("{")) return;
        const prefix = segments.slice(0, i).join("/");
        const seen = names.get(prefix) ?? segment;
        expect(segment, `${route} vs {${prefix}/${seen}}`).toBe(seen);
        names.set(prefix, seen);
      });
    }
  });

  it("api - every route of ROUTES is registered once, on its own function", () => {
    one("sst.aws.ApiGatewayV2", "Api");
    const expected = Object.entries(ROUTES).flatMap(([group, list]) =>
      list.map((route) => ({ route, handler: arnOf(API_FUNCTIONS[group as keyof typeof ROUTES]) })),
    );
    expect([...routes].sort((a, b) => a.route.localeCompare(b.route))).toEqual(
      expected.sort((a, b) => a.route.localeCompare(b.route)),
    );
  });

  it.each(Object.entries(API_FUNCTIONS))("%s function - node 24, 512 MB, linked to table, bus, secrets and the modules' secrets", (group, name) => {
    const { args } = one("sst.aws.Function", name);
    expect(args.handler).toBe(`packages/functions/src/api/${group}.handler`);
    expect(args.runtime ?? "nodejs24.x").toBe("nodejs24.x");
    expect(args.memory).toBe("512 MB");
    const linked = (args.link as { name: string }[]).map((l) => l.name).sort();
    expect(linked).toEqual(["AdminToken", "Bus", MODULE_SECRET, "SigningKey", "Table"].sort());
    // The approvals rule subscribes to the calls waiting for a person (approvals, questions), so those per-call events are published; call.settled is not.
    expect(args.environment).toEqual({ TOOLGATE_MODULE_SECRETS: MODULE_SECRET, TOOLGATE_CALL_EVENT_TYPES: "call.awaiting_confirmation,question.asked" });
  });

  it("timeouts - groups and roles end before the gateway, execution outlives a 30 s tool call", () => {
    expect(seconds(one("sst.aws.Function", "GroupsFunction").args.timeout)).toBeLessThan(API_GATEWAY_CAP_SECONDS);
    expect(seconds(one("sst.aws.Function", "RolesFunction").args.timeout)).toBeLessThan(API_GATEWAY_CAP_SECONDS);
    expect(seconds(one("sst.aws.Function", "ExecutionFunction").args.timeout)).toBeGreaterThan(API_GATEWAY_CAP_SECONDS);
  });
});

describe("infra/cron.ts", () => {
  it("cleanup - hourly, linked to the table alone (the calls it settles are announced from the table's stream), time to finish", () => {
    const { args } = one("sst.aws.CronV2", "Cleanup");
    expect(args.schedule).toBe("rate(1 hour)");
    const fn = args.function as Args;
    expect(fn.handler).toBe("packages/functions/src/cron/cleanup.handler");
    expect((fn.link as { name: string }[]).map((l) => l.name)).toEqual(["Table"]);
    expect(seconds(fn.timeout)).toBeGreaterThanOrEqual(60);
  });
});

describe("handlers", () => {
  function referencedHandlers(): string[] {
    const fromFunctions = created.filter((c) => c.kind === "sst.aws.Function").map((c) => c.args.handler);
    const fromSubscriptions = [...subscriptions, ...streamSubscriptions].map((s) => s.subscriber.handler);
    const fromCrons = created.filter((c) => c.kind === "sst.aws.CronV2").map((c) => (c.args.function as Args).handler);
    return [...fromFunctions, ...fromSubscriptions, ...fromCrons].map(String);
  }

  it("handlers - infra references the five handlers, and the webhook one for a rule (the call events' one only where a rule wants call.settled)", () => {
    expect(referencedHandlers().sort()).toEqual([
      "packages/functions/src/api/execution.handler",
      "packages/functions/src/api/groups.handler",
      "packages/functions/src/api/roles.handler",
      "packages/functions/src/cron/cleanup.handler",
      "packages/functions/src/event/modules.handler",
      "packages/functions/src/event/webhook.handler",
    ]);
  });

  it("handlers - every referenced file exists and exports its handler", () => {
    for (const handler of referencedHandlers()) {
      const { file, exportName } = handlerFile(handler);
      expect(file, `file for ${handler}`).toBeDefined();
      expect(exportsName(readFileSync(join(ROOT, file!), "utf8"), exportName), `${file} exports ${exportName}`).toBe(true);
    }
  });
});
