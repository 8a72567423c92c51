import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { EventBridgeEvent } from "aws-lambda";
import { Hono } from "hono";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { refusal } from "./signed-request";
import type { LocalAccess } from "./signed-request";

export type EventBridgeEnvelope = EventBridgeEvent<string, Record<string, unknown>>;

/** The shape SST's `bus.subscribe` takes: exact values for source and detail-type, nested exact values (or matcher objects) for detail. */
export interface EventPattern {
  source?: string[];
  detailType?: string[];
  detail?: Record<string, unknown>;
}

export interface EventRule {
  name: string;
  pattern: EventPattern;
  deliver(event: EventBridgeEnvelope): Promise<void>;
}

export interface EventBridgeOptions {
  rules: EventRule[];
  /** Who may put events: as on AWS, only requests signed with a known key pair (or here the admin token). */
  access: LocalAccess;
  region?: string;
  accountId?: string;
  log?: (line: string) => void;
  retry?: Partial<RetryPolicy>;
}

/** EventBridge retries a failed delivery for up to 24 h; locally a handful of attempts over ~20 s stands in for that. */
export type RetryPolicy = { attempts: number; baseDelayMs: number; maxDelayMs: number };

const DEFAULT_RETRY: RetryPolicy = { attempts: 10, baseDelayMs: 100, maxDelayMs: 5_000 };

/** Exponential backoff with jitter: between half and all of baseDelayMs * 2^(attempt-1), capped at maxDelayMs. */
export function retryDelayMs(attempt: number, policy: RetryPolicy, random = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return ceiling / 2 + random() * (ceiling / 2);
}

const MAX_ENTRIES = 10;
const MAX_SIZE_BYTES = 256 * 1024;
const JSON_CONTENT_TYPE = "application/x-amz-json-1.1";
const PUT_EVENTS_TARGET = "AWSEvents.PutEvents";

type EntryResult = { EventId: string } | { ErrorCode: string; ErrorMessage: string };

/** The event and its Detail text: each delivery parses its own copy, as structuredClone overflows the stack on deeply nested JSON. */
type AcceptedEvent = { event: EventBridgeEnvelope; detailText: string };

const freshCopy = ({ event, detailText }: AcceptedEvent): EventBridgeEnvelope => ({
  ...event,
  resources: [...event.resources],
  detail: JSON.parse(detailText) as Record<string, unknown>,
});

export function eventBridgeApp(options: EventBridgeOptions): { app: Hono; drain(): Promise<void> } {
  const region = options.region ?? "us-east-1";
  const account = options.accountId ?? "000000000000";
  const log = options.log ?? ((line: string) => console.error(line));
  const retry: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  const pending = new Set<Promise<void>>();

  const deliverWithRetry = async (rule: EventRule, accepted: AcceptedEvent) => {
    const { event } = accepted;
    for (let attempt = 1; ; attempt++) {
      try {
        await rule.deliver(freshCopy(accepted));
        return;
      } catch (error) {
        if (attempt >= retry.attempts) {
          const reason = error instanceof Error ? error.message : String(error);
          log(`eventbridge: rule ${rule.name} gave up on event ${event.id} (${event["detail-type"]}) after ${attempt} attempts: ${reason}`);
          return;
        }
        await sleep(retryDelayMs(attempt, retry));
      }
    }
  };

  const dispatch = (accepted: AcceptedEvent) => {
    for (const rule of options.rules) {
      if (!matchesPattern(rule.pattern, accepted.event)) continue;
      const delivery = new Promise<void>((resolve) => setImmediate(resolve)).then(() => deliverWithRetry(rule, accepted));
      pending.add(delivery);
      void delivery.finally(() => pending.delete(delivery));
    }
  };

  const signedOnly: MiddlewareHandler = async (c, next) => {
    const body = new Uint8Array(await c.req.arrayBuffer());
    const refused = await refusal({ method: c.req.method, url: c.req.url, headers: c.req.raw.headers, body }, options.access, "events");
    if (refused === undefined) return next();
    log(`eventbridge: refused a request (${refused.type}); nothing was put`);
    return awsError(c, refused.type, refused.message, 403);
  };

  const putEvents = async (c: Context) => {
    const target = c.req.header("x-amz-target");
    if (target !== PUT_EVENTS_TARGET) {
      return awsError(c, "UnknownOperationException", `Operation ${target ?? "(none)"} is not supported by the local EventBridge; only PutEvents is.`);
    }
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      return awsError(c, "SerializationException", "The request body is not valid JSON.");
    }
    const entries = isObject(body) ? body.Entries : undefined;
    if (!Array.isArray(entries) || !entries.every(isObject)) {
      return awsError(c, "SerializationException", "Entries must be a list of objects.");
    }
    if (entries.length === 0 || entries.length > MAX_ENTRIES) {
      return awsError(
        c,
        "ValidationException",
        `1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length between 1 and ${MAX_ENTRIES} (it has ${entries.length}).`,
      );
    }
    const fieldError = entries.map(wrongFieldType).find((message) => message !== undefined);
    if (fieldError !== undefined) return awsError(c, "SerializationException", fieldError);
    // Like AWS, an oversized entry fails the whole request rather than only its own slot.
    if (entries.reduce((total, entry) => total + entrySize(entry), 0) > MAX_SIZE_BYTES) {
      return awsError(c, "ValidationException", "Total size of the entries in the request is over the limit.");
    }

    const accepted: AcceptedEvent[] = [];
    const results = entries.map((entry): EntryResult => {
      const problem = entryProblem(entry);
      if (problem) return problem;
      const event: EventBridgeEnvelope = {
        version: "0",
        id: randomUUID(),
        "detail-type": entry.DetailType as string,
        source: entry.Source as string,
        account,
        time: eventTime(entry.Time),
        region,
        resources: (entry.Resources as string[] | undefined) ?? [],
        detail: JSON.parse(entry.Detail as string) as Record<string, unknown>,
      };
      accepted.push({ event, detailText: entry.Detail as string });
      return { EventId: event.id };
    });
    accepted.forEach(dispatch);

    const failed = results.filter((result) => "ErrorCode" in result).length;
    return awsJson(c, 200, { FailedEntryCount: failed, Entries: results });
  };

  const app = new Hono();
  const limit = bodyLimit({
    maxSize: 4 * MAX_SIZE_BYTES,
    onError: (c) => awsError(c, "ValidationException", "Total size of the entries in the request is over the limit."),
  });
  app.post("/eventbridge", limit, signedOnly, putEvents);
  app.post("/eventbridge/", limit, signedOnly, putEvents);

  const drain = async () => {
    while (pending.size > 0) await Promise.allSettled([...pending]);
  };
  return { app, drain };
}

export function matchesPattern(pattern: EventPattern, event: EventBridgeEnvelope): boolean {
  if (pattern.source && !pattern.source.includes(event.source)) return false;
  if (pattern.detailType && !pattern.detailType.includes(event["detail-type"])) return false;
  return pattern.detail === undefined || matchesObject(pattern.detail, event.detail);
}

function matchesObject(pattern: Record<string, unknown>, value: unknown): boolean {
  return Object.entries(pattern).every(([key, expected]) => {
    const actual = isObject(value) ? value[key] : undefined;
    if (Array.isArray(expected)) return matchesField(expected, actual);
    return isObject(expected) && matchesObject(expected, actual);
  });
}

/** A field matches when any matcher accepts it; an array field matches when any of its elements does. */
function matchesField(matchers: unknown[], actual: unknown): boolean {
  const values = Array.isArray(actual) ? actual : [actual];
  return matchers.some((matcher) => {
    if (isObject(matcher) && "exists" in matcher) return matcher.exists === (actual !== undefined);
    if (actual === undefined) return false;
    return values.some((value) => matchesValue(matcher, value));
  });
}

function matchesValue(matcher: unknown, value: unknown): boolean {
  if (!isObject(matcher)) return matcher === value;
  if (typeof matcher.prefix === "string") return typeof value === "string" && value.startsWith(matcher.prefix);
  if ("anything-but" in matcher) {
    const excluded = matcher["anything-but"];
    return Array.isArray(excluded) ? !excluded.includes(value) : excluded !== value;
  }
  return false;
}

function wrongFieldType(entry: Record<string, unknown>): string | undefined {
  for (const field of ["Source", "DetailType", "Detail", "EventBusName", "TraceHeader"]) {
    if (entry[field] !== undefined && typeof entry[field] !== "string") return `${field} must be a string.`;
  }
  const resources = entry.Resources;
  if (resources !== undefined && !(Array.isArray(resources) && resources.every((r) => typeof r === "string"))) {
    return "Resources must be a list of strings.";
  }
  if (entry.Time !== undefined && typeof entry.Time !== "number" && typeof entry.Time !== "string") {
    return "Time must be a timestamp.";
  }
  return undefined;
}

function entryProblem(entry: Record<string, unknown>): EntryResult | undefined {
  for (const field of ["Source", "DetailType", "Detail"]) {
    if (typeof entry[field] !== "string" || entry[field] === "") {
      return { ErrorCode: "InvalidArgument", ErrorMessage: `Parameter ${field} is not valid. Reason: ${field} is a required argument.` };
    }
  }
  if (!isObject(parseJson(entry.Detail as string))) return { ErrorCode: "MalformedDetail", ErrorMessage: "Detail is malformed." };
  return undefined;
}

/** EventBridge's own size rule: 14 bytes for Time, then the UTF-8 bytes of Source, DetailType, Detail and each resource. */
function entrySize(entry: Record<string, unknown>): number {
  const bytes = (value: unknown) => (typeof value === "string" ? Buffer.byteLength(value) : 0);
  const resources = Array.isArray(entry.Resources) ? entry.Resources : [];
  return (
    (entry.Time === undefined ? 0 : 14) +
    bytes(entry.Source) +
    bytes(entry.DetailType) +
    bytes(entry.Detail) +
    resources.reduce((total: number, resource) => total + bytes(resource), 0)
  );
}

function eventTime(time: unknown): string {
  const date = typeof time === "number" ? new Date(time * 1000) : typeof time === "string" ? new Date(time) : new Date();
  return (Number.isNaN(date.getTime()) ? new Date() : date).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function awsJson(c: Context, status: 200 | 400 | 403, body: unknown, headers: Record<string, string> = {}) {
  return c.body(JSON.stringify(body), status, { "content-type": JSON_CONTENT_TYPE, "x-amzn-requestid": randomUUID(), ...headers });
}

function awsError(c: Context, type: string, message: string, status: 400 | 403 = 400) {
  return awsJson(c, status, { __type: type, message }, { "x-amzn-errortype": type });
}
