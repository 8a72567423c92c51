import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Context, MiddlewareHandler } from "hono";
import { busy, commonError, ConditionFailedError, storeUnavailable, StoreUnavailableError, ToolgateError } from "@toolgate/core/error";
import { policyEngineStatus } from "@toolgate/core/health";
import type { Principal } from "@toolgate/core/agent";
import type { Toolgate } from "@toolgate/core/toolgate";
import { lineEachRequest, logger } from "../log";
import type { RequestLog } from "../log";
import { API } from "../routes";
import { readBody } from "./body";
import { httpError } from "./errors";
import { requestLog } from "./log";
import { method, path } from "./route";
/** For the request's log line: `principal`, whoever the token proved to be; `callId`, set by a handler whose answer is a call. */
export type Env = { Variables: { toolgate: Toolgate; principal?: Principal; callId?: string } };

const MAX_BODY_BYTES = 1024 * 1024;
/** Ids become DynamoDB keys (at most 1,024 bytes for a sort key); no id toolgate issues comes near this. */
const MAX_PATH_SEGMENT_BYTES = 256;

const overlongSegment = (path: string) =>
  path.split("/").some((segment) => {
    try {
      return Buffer.byteLength(decodeURIComponent(segment), "utf8") > MAX_PATH_SEGMENT_BYTES;
    } catch {
      return true;
    }
  });

const tooLarge = (c: Context) =>
  errorBody(c, httpError("payload_too_large", `The request body is larger than ${MAX_BODY_BYTES / 1024} KiB.`));
const streamedBodyLimit = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: tooLarge });

/**
 * A body's declared length is judged from the header alone, which leaves the body unread for the route (on Node, reading
 * it through the web Request would build a stream per request); a body sent without a length is counted as it streams in.
 */
const withinBodyLimit: MiddlewareHandler = (c, next) => {
  const declared = c.req.header("content-length");
  if (declared !== undefined && c.req.header("transfer-encoding") === undefined) return Number(declared) > MAX_BODY_BYTES ? Promise.resolve(tooLarge(c)) : next();
  if (declared === undefined && (c.req.method === "GET" || c.req.method === "HEAD")) return next();
  return streamedBodyLimit(c, next);
};

/** Refusals that end with a time to wait say so in Retry-After too, for clients that back off on their own. */
function errorBody(c: Context, error: ToolgateError) {
  const { retryAfterSeconds } = error.details;
  const headers: Record<string, string> = typeof retryAfterSeconds === "number" ? { "Retry-After": String(Math.max(1, Math.ceil(retryAfterSeconds))) } : {};
  return c.json(error.toBody(), error.status, headers);
}

/** A Hono app with toolgate's error contract: every failure is `{ error, message }`, never a stack trace. */
export function createApp(getToolgate: () => Toolgate, logRequest: RequestLog = lineEachRequest) {
  const app = new Hono<Env>();
  app.use(requestLog(logRequest));
  app.on(method(API.groups.health.check), path(API.groups.health.check), async (c) => {
    const store = await getToolgate().health.status();
    const engine = c.req.query("deep") === "1" ? { policyEngine: policyEngineStatus() } : {};
    const ok = store === "available" && engine.policyEngine !== "unavailable";
    return ok ? c.json({ ok, store, ...engine }) : c.json({ ok, store, ...engine }, 503, { "Retry-After": "2" });
  });
  app.use(async (c, next) => {
    const toolgate = getToolgate();
    await toolgate.ready();
    c.set("toolgate", toolgate);
    await next();
  });
  app.use(async (c, next) => {
    if (overlongSegment(c.req.path))
      throw httpError("invalid_path", `A part of the path is longer than ${MAX_PATH_SEGMENT_BYTES} bytes or badly encoded; no id or name is.`);
    await next();
  });
  app.use(withinBodyLimit);
  app.onError((error, c) => {
    if (error instanceof ToolgateError) return errorBody(c, error);
    if (error instanceof StoreUnavailableError) return errorBody(c, storeUnavailable(error));
    if (error instanceof ConditionFailedError) {
      logger.warn("a lost write race reached the edge", { method: c.req.method, path: c.req.path });
      return errorBody(c, busy());
    }
    logger.error("internal error", { method: c.req.method, path: c.req.path, error: error as Error });
    return errorBody(c, httpError("internal", "Something went wrong inside toolgate; the request was not completed."));
  });
  app.notFound((c) => errorBody(c, httpError("not_found", `There is no route ${c.req.method} ${c.req.path}.`)));
  return app;
}

/**
 * The request body as JSON (readBody); malformed JSON is a 400, an absent body is `undefined` for the schema to judge.
 * JSON nested deeper than the one limit is a 400 here, except where the guard judges it so the refusal is recorded.
 */
export async function readJson(c: Context, options: { depthJudgedByGuard?: boolean } = {}): Promise<unknown> {
  const { json, problem } = await readBody(c, { depth: !options.depthJudgedByGuard });
  if (problem?.code === "json_too_deep") throw commonError("json_too_deep", problem.message);
  if (problem) throw httpError(problem.code, problem.message);
  return json;
}
