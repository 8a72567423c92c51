import { Resource } from "sst";
import { DEFAULT_STORE_SETTINGS } from "./dynamo/client";
import type { BusPublisherOptions, BusTarget } from "./events/publisher";
import { PER_CALL_EVENT_TYPES } from "./events/types";
import type { ToolgateEventType } from "./events/types";
import type { AccessKeyPair, DbOptions } from "./dynamo/client";
import { DEFAULT_GUARD_SETTINGS } from "./guard/settings";
import type { GuardSettings } from "./guard/settings";
import { DEFAULT_MCP_SETTINGS } from "./mcp/schema";
import type { McpSettings } from "./mcp/schema";

const positiveNumber = (value: string | undefined, fallback: number) => {
  const parsed = Number(value);
  return value !== undefined && Number.isFinite(parsed) && parsed > 0 ? parsed : fallback;
};

/**
 * The key pair `npm start` signs its local AWS endpoints with (DynamoDB Local, /eventbridge), which it sets here for
 * the handlers; a person may set it too.
 */
export function localAccessKeyPair(env: NodeJS.ProcessEnv = process.env): AccessKeyPair | undefined {
  const accessKeyId = env.TOOLGATE_LOCAL_AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.TOOLGATE_LOCAL_AWS_SECRET_ACCESS_KEY;
  return accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined;
}

/** The store as SST links it (Resource.Table), with the limits set in the environment; locally, on DynamoDB Local under the local key. */
export const storeOptions = (env: NodeJS.ProcessEnv = process.env): DbOptions => ({
  table: Resource.Table.name,
  endpoint: env.TOOLGATE_DYNAMODB_ENDPOINT || undefined,
  credentials: env.TOOLGATE_DYNAMODB_ENDPOINT ? localAccessKeyPair(env) : undefined,
  requestTimeoutMs: positiveNumber(env.TOOLGATE_DYNAMODB_TIMEOUT_MS, DEFAULT_STORE_SETTINGS.requestTimeoutMs),
  maxAttempts: positiveNumber(env.TOOLGATE_DYNAMODB_MAX_ATTEMPTS, DEFAULT_STORE_SETTINGS.maxAttempts),
  contentionDeadlineMs: positiveNumber(env.TOOLGATE_CONTENTION_DEADLINE_MS, DEFAULT_STORE_SETTINGS.contentionDeadlineMs),
});

const list = (value: string | undefined) => (value ?? "").split(",").map((item) => item.trim()).filter(Boolean);

export const mcpSettings = (env: NodeJS.ProcessEnv = process.env): McpSettings => ({
  pageSize: Math.floor(positiveNumber(env.TOOLGATE_MCP_PAGE_SIZE, DEFAULT_MCP_SETTINGS.pageSize)),
  listTtlMs: Math.floor(positiveNumber(env.TOOLGATE_MCP_LIST_TTL_MS, DEFAULT_MCP_SETTINGS.listTtlMs)),
  allowedOrigins: list(env.TOOLGATE_MCP_ALLOWED_ORIGINS),
  streams: env.TOOLGATE_MCP_STREAMING === "true",
});

export const guardSettings = (env: NodeJS.ProcessEnv = process.env): GuardSettings => ({
  callRetentionDays: positiveNumber(env.TOOLGATE_CALL_RETENTION_DAYS, DEFAULT_GUARD_SETTINGS.callRetentionDays),
  defaultTimeoutMs: positiveNumber(env.TOOLGATE_DEFAULT_TIMEOUT_MS, DEFAULT_GUARD_SETTINGS.defaultTimeoutMs),
  doomLoopThreshold: positiveNumber(env.TOOLGATE_DOOM_LOOP_THRESHOLD, DEFAULT_GUARD_SETTINGS.doomLoopThreshold),
  agentTokenDays: positiveNumber(env.TOOLGATE_AGENT_TOKEN_DAYS, DEFAULT_GUARD_SETTINGS.agentTokenDays),
  confirmationTimeoutMs: positiveNumber(env.TOOLGATE_CONFIRMATION_TIMEOUT_MS, DEFAULT_GUARD_SETTINGS.confirmationTimeoutMs),
  clientResultTimeoutMs: positiveNumber(env.TOOLGATE_CLIENT_RESULT_TIMEOUT_MS, DEFAULT_GUARD_SETTINGS.clientResultTimeoutMs),
  questionTimeoutMs: positiveNumber(env.TOOLGATE_QUESTION_TIMEOUT_MS, DEFAULT_GUARD_SETTINGS.questionTimeoutMs),
});

/** The bus SST links (Resource.Bus), undefined where none is linked; locally TOOLGATE_EVENTS_ENDPOINT names the embedded PutEvents endpoint, signed with the local key. */
export function eventTarget(env: NodeJS.ProcessEnv = process.env): BusTarget | undefined {
  let busName: string;
  try {
    busName = Resource.Bus.name;
  } catch {
    return undefined;
  }
  const endpoint = env.TOOLGATE_EVENTS_ENDPOINT;
  return { busName, ...(endpoint ? { endpoint, credentials: localAccessKeyPair(env) } : {}) };
}

/**
 * Which of toolgate's events to publish: every one that is not per call, and the per-call ones named in
 * TOOLGATE_CALL_EVENT_TYPES (the deploy and npm start set it from the rules that subscribe to them; unset: none).
 */
export function publishedEvents(env: NodeJS.ProcessEnv = process.env): (type: ToolgateEventType) => boolean {
  const perCall = new Set(list(env.TOOLGATE_CALL_EVENT_TYPES));
  return (type) => !PER_CALL_EVENT_TYPES.includes(type) || perCall.has(type);
}

/** The bus SST links, with the events this deployment publishes: what every function of toolgate's publishes with. */
export const linkedBus = (env: NodeJS.ProcessEnv = process.env): BusPublisherOptions => ({ target: () => eventTarget(env), publishes: () => publishedEvents(env) });
