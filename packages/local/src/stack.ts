import { resolve, join } from "node:path";
import { MODULE_EVENTS_PATTERN } from "@toolgate/core/module/events";
import { loadWebhookRules, publishedCallEvents } from "@toolgate/core/events/rules";
import { TOOLGATE_EVENT_SOURCE, ToolgateEventType } from "@toolgate/core/events/types";
import type { WebhookRule } from "@toolgate/core/events/rules";
import { postToWebhook } from "@toolgate/core/events/webhook";
import { ROUTES } from "@toolgate/functions/routes";
import { startDynamoLocal } from "./dynamo-local";
import type { DynamoLocal } from "./dynamo-local";
import { eventBridgeApp } from "./eventbridge";
import type { EventRule } from "./eventbridge";
import { ensureTable } from "./local-table";
import { acquireDataDirLock } from "./lock";
import { routedFetch } from "./router";
import { requestSummary } from "./request-log";
import { localAwsCredentials, localSecret } from "./secrets";
import { listen } from "./server";
import type { ListeningServer } from "./server";
import { pollTableStream } from "./table-stream";
import type { StreamRecord } from "@toolgate/core/events";
import { EXAMPLE_MODULE, startExampleModule } from "./example-module";
import { closeMcpExecutor } from "@toolgate/core/executor";
import { defaultStdioDir, startStdioServers } from "./stdio-servers";
import type { StdioServers } from "./stdio-servers";
import type { ExampleModule } from "./example-module";
import type { AccessKeyPair, LocalAwsCredentials, LocalSecret } from "./secrets";

export type LocalOptions = {
  port: number;
  host: string;
  dataDir: string;
  inMemory: boolean;
  adminToken?: string;
  signingKey?: string;
  /** The local AWS key pair, when the environment sets it (TOOLGATE_LOCAL_AWS_ACCESS_KEY_ID, TOOLGATE_LOCAL_AWS_SECRET_ACCESS_KEY). */
  awsCredentials: Partial<AccessKeyPair>;
  cleanupIntervalMs: number;
  /** How often the summary line of requests is printed, when there were any (unless every request is logged). */
  requestSummaryIntervalMs: number;
  /** Subscribers of toolgate's events; by default from TOOLGATE_EVENT_RULES, else <dataDir>/rules.json. */
  eventRules?: WebhookRule[];
  /** Starts the example module (TOOLGATE_EXAMPLE_MODULE=1) once toolgate answers. */
  exampleModule: boolean;
  /** Where stdio servers' directories are kept (TOOLGATE_STDIO_DIR, else the user's cache; a temporary one in memory). */
  stdioDir?: string;
  log: (line: string) => void;
};

export type LocalStack = {
  url: string;
  adminToken: LocalSecret;
  /** What signs requests to DynamoDB Local and /eventbridge. */
  awsCredentials: LocalAwsCredentials;
  dataDir: string | undefined;
  /** The example module's executor URL when it runs. */
  exampleModule: string | undefined;
  stop(): Promise<void>;
};

const TABLE_NAME = "toolgate";
const LOCAL_BUS_NAME = "toolgate-local";

/** A group's registration, change or removal: its stdio server's process is stopped unless the group still names it. */
const GROUP_CHANGES = { source: [TOOLGATE_EVENT_SOURCE], detailType: [ToolgateEventType.GroupChanged] };

/** A subscriber from the rules file: each matching event is POSTed to its webhook, retried by the bus like any delivery. */
const webhookRule = (rule: WebhookRule): EventRule => ({ name: rule.name, pattern: rule.pattern, deliver: (event) => postToWebhook(rule.webhook, event) });

/** Waits for the example module's module.loaded event to be applied (it is delivered after PutEvents answers). */
async function untilLoaded(version: number, read: () => Promise<{ status: string; version: number; reason?: { message: string } }>, timeoutMs = 15_000) {
  for (const until = Date.now() + timeoutMs; ; ) {
    const state = await read().catch(() => undefined);
    const current = state && state.version >= version ? state : undefined;
    if (current?.status === "loaded") return;
    if (current?.status === "rejected") throw new Error(`the example module was rejected: ${current.reason?.message ?? "no reason given"}`);
    if (Date.now() > until) throw new Error("the example module did not load within 15 s");
    await new Promise((done) => setTimeout(done, 50));
  }
}

export function optionsFromEnv(env: NodeJS.ProcessEnv = process.env): LocalOptions {
  const port = env.PORT === undefined ? 8787 : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number; got "${env.PORT}".`);
  return {
    port,
    host: env.HOST || "127.0.0.1",
    dataDir: resolve(env.TOOLGATE_DATA_DIR || ".toolgate"),
    inMemory: env.TOOLGATE_IN_MEMORY === "1" || env.TOOLGATE_IN_MEMORY === "true",
    adminToken: env.TOOLGATE_ADMIN_TOKEN || undefined,
    signingKey: env.TOOLGATE_SIGNING_KEY || undefined,
    awsCredentials: { accessKeyId: env.TOOLGATE_LOCAL_AWS_ACCESS_KEY_ID || undefined, secretAccessKey: env.TOOLGATE_LOCAL_AWS_SECRET_ACCESS_KEY || undefined },
    cleanupIntervalMs: Number(env.TOOLGATE_CLEANUP_INTERVAL_MS) > 0 ? Number(env.TOOLGATE_CLEANUP_INTERVAL_MS) : 60_000,
    requestSummaryIntervalMs: Number(env.TOOLGATE_LOG_SUMMARY_INTERVAL_MS) > 0 ? Number(env.TOOLGATE_LOG_SUMMARY_INTERVAL_MS) : 60_000,
    exampleModule: env.TOOLGATE_EXAMPLE_MODULE === "1" || env.TOOLGATE_EXAMPLE_MODULE === "true",
    ...(env.TOOLGATE_STDIO_DIR ? { stdioDir: resolve(env.TOOLGATE_STDIO_DIR) } : {}),
    log: (line) => console.log(line),
  };
}

/** Where a person finds the local key pair, for the answer to a request that is not signed with it. */
const whereKeysAre = (credentials: LocalAwsCredentials) =>
  credentials.file
    ? `in ${credentials.file}`
    : credentials.source === "environment"
      ? "set in TOOLGATE_LOCAL_AWS_ACCESS_KEY_ID and TOOLGATE_LOCAL_AWS_SECRET_ACCESS_KEY"
      : "that npm start printed";

/** DynamoDB Local, the three API functions behind one server, the EventBridge endpoint and the cleanup timer. */
export async function startLocal(options: LocalOptions): Promise<LocalStack> {
  const dataDir = options.inMemory ? undefined : options.dataDir;
  // Taken before DynamoDB Local starts: a refused start must not touch the running instance's DynamoDB Local.
  const lock = dataDir === undefined ? undefined : await acquireDataDirLock(dataDir, options.port);
  let dynamo: DynamoLocal | undefined;
  let afterDynamoRestart = async () => {};
  let server: ListeningServer | undefined;
  let timer: NodeJS.Timeout | undefined;
  let drain: () => Promise<void> = async () => {};
  let example: ExampleModule | undefined;
  let stopStream: () => Promise<void> = async () => {};
  let stdio: StdioServers | undefined;
  let stopping: Promise<void> | undefined;
  const requests = requestSummary({ intervalMs: options.requestSummaryIntervalMs, print: options.log });
  const stop = () =>
    (stopping ??= (async () => {
      if (timer) clearInterval(timer);
      // Agents' MCP streams stay open until ended: the server's close waits for every connection.
      await (await import("@toolgate/core/mcp/streams")).closeMcpStreams();
      await server?.close();
      requests.stop();
      requests.flush();
      await example?.stop();
      await stopStream();
      await Promise.race([drain(), new Promise((done) => setTimeout(done, 5_000))]);
      await stdio?.stop();
      await closeMcpExecutor();
      await dynamo?.stop();
      await lock?.release();
    })());

  try {
    server = await listen(options.port, options.host);
    await lock?.setPort(server.port);
    const url = `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${server.port}`;
    const adminToken = await localSecret("admin-token", options.adminToken, dataDir);
    const signingKey = await localSecret("signing-key", options.signingKey, dataDir);
    const awsCredentials = await localAwsCredentials(options.awsCredentials, dataDir);
    const keyPair = { accessKeyId: awsCredentials.accessKeyId, secretAccessKey: awsCredentials.secretAccessKey };
    dynamo = await startDynamoLocal({
      dataDir: dataDir && join(dataDir, "dynamodb"),
      credentials: keyPair,
      log: options.log,
      output: () => {},
      onRestart: () => afterDynamoRestart(),
    });
    Object.assign(process.env, {
      SST_RESOURCE_App: JSON.stringify({ name: "toolgate", stage: "local" }),
      SST_RESOURCE_Table: JSON.stringify({ name: TABLE_NAME, type: "sst.aws.Dynamo" }),
      SST_RESOURCE_AdminToken: JSON.stringify({ value: adminToken.value, type: "sst.sst.Secret" }),
      SST_RESOURCE_SigningKey: JSON.stringify({ value: signingKey.value, type: "sst.sst.Secret" }),
      TOOLGATE_DYNAMODB_ENDPOINT: dynamo.endpoint,
      TOOLGATE_LOCAL_AWS_ACCESS_KEY_ID: keyPair.accessKeyId,
      TOOLGATE_LOCAL_AWS_SECRET_ACCESS_KEY: keyPair.secretAccessKey,
      SST_RESOURCE_Bus: JSON.stringify({ name: LOCAL_BUS_NAME, arn: `arn:aws:events:us-east-1:000000000000:event-bus/${LOCAL_BUS_NAME}`, type: "sst.aws.Bus" }),
    });
    const webhooks = options.eventRules ?? loadWebhookRules(process.env.TOOLGATE_EVENT_RULES, dataDir && join(dataDir, "rules.json"));
    const callEvents = publishedCallEvents(webhooks, process.env.TOOLGATE_CALL_EVENTS);
    process.env.TOOLGATE_CALL_EVENT_TYPES = callEvents.join(",");
    // This one HTTP server writes a response as it goes: an MCP call's response streams what happens during it.
    process.env.TOOLGATE_MCP_STREAMING ??= "true";
    const { toolgate } = await import("@toolgate/core/toolgate");
    await ensureTable(toolgate().db.client, TABLE_NAME);
    await toolgate().ready();
    const { backfill } = await import("@toolgate/core/cleanup");
    const { indexed, counted } = await backfill(toolgate().db);
    if (indexed) options.log(`toolgate: indexed ${indexed} agents and calls stored before GET /agents and the approval queue`);
    if (counted) options.log(`toolgate: counted ${counted} active agents stored before GET /departments in their departments`);
    if (dataDir === undefined) {
      const { recreateTable } = await import("./recreate");
      afterDynamoRestart = async () => {
        await recreateTable(toolgate(), TABLE_NAME);
        options.log("toolgate: the in-memory data was lost; recreated the table, the built-in groups, the root role and the root agent");
      };
    }

    const [{ groupsApp }, { rolesApp }, { executionApp }, { handleModuleEvent }, { handleCallStream }] = await Promise.all([
      import("@toolgate/functions/api/groups"),
      import("@toolgate/functions/api/roles"),
      import("@toolgate/functions/api/execution"),
      import("@toolgate/functions/event/modules"),
      import("@toolgate/functions/event/calls"),
    ]);

    const servers = (stdio = await startStdioServers({ dataDir, stdioDir: options.stdioDir ?? (dataDir === undefined ? undefined : defaultStdioDir()), log: options.log }));
    const currentExecutor = async (groupId: string) => (await toolgate().catalog.snapshot()).manager.getGroup(groupId)?.executor;
    const bus = eventBridgeApp({
      rules: [
        { name: "ModuleEvents", pattern: MODULE_EVENTS_PATTERN, deliver: async (event) => void (await handleModuleEvent(toolgate(), event)) },
        { name: "StdioServers", pattern: GROUP_CHANGES, deliver: async (event) => servers.retire(String(event.detail.groupId), await currentExecutor(String(event.detail.groupId))) },
        ...webhooks.map(webhookRule),
      ],
      access: { credentials: keyPair, adminToken: adminToken.value, where: whereKeysAre(awsCredentials) },
      log: options.log,
    });
    drain = bus.drain;
    if (callEvents.includes(ToolgateEventType.CallSettled))
      stopStream = pollTableStream({
        endpoint: dynamo.endpoint,
        credentials: keyPair,
        table: TABLE_NAME,
        deliver: (records) => handleCallStream(toolgate().events, records as StreamRecord[]),
        log: options.log,
      });
    const fetch = routedFetch([
      { routes: ROUTES.groups, app: groupsApp(toolgate, requests.log) },
      { routes: ROUTES.roles, app: rolesApp(toolgate, requests.log) },
      { routes: ROUTES.execution, app: executionApp(toolgate, requests.log) },
      { routes: ["POST /eventbridge", "POST /eventbridge/"], app: bus.app },
    ]);

    // toolgate's own events go to this endpoint (read on their first publish), then to the rules above.
    process.env.TOOLGATE_EVENTS_ENDPOINT = `${url}/eventbridge`;
    server.serve(fetch);

    timer = setInterval(() => {
      toolgate()
        .cleanup()
        .then((report) => {
          if (report.deleted || report.settled) options.log(`cleanup: ${report.settled} lapsed calls settled, ${report.deleted} expired records deleted`);
        })
        .catch((error) => options.log(`cleanup failed: ${String(error)}`));
    }, options.cleanupIntervalMs);
    timer.unref();

    for (const rule of webhooks) options.log(`events: rule ${rule.name} POSTs ${rule.pattern.detailType?.join(", ") ?? "matching events"} to ${new URL(rule.webhook).origin}`);
    if (options.exampleModule) {
      example = await startExampleModule(url, keyPair);
      const Module = await import("@toolgate/core/module");
      await untilLoaded(example.version, () => Module.get(toolgate().db, EXAMPLE_MODULE));
    }
    return { url, adminToken, awsCredentials, dataDir, exampleModule: example?.url, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
