import type { MiddlewareHandler } from "hono";
import type { z } from "zod";
import { parseOr } from "@toolgate/core/validation";
import type { Env } from "./app";
import { readJson } from "./app";

type Validated<Target extends "json" | "query", S extends z.ZodType> = { in: { [K in Target]: z.input<S> }; out: { [K in Target]: z.output<S> } };

/** What a validator checks, kept on the middleware so GET /openapi.json documents exactly the schema the edge enforces. */
export type Validation = { target: "json" | "query"; schema: z.ZodType; code: string };

const validating = <M extends MiddlewareHandler>(middleware: M, validation: Validation) => Object.assign(middleware, { validation });

/** The validation a route's middleware performs, if it is one of these validators. */
export const validationOf = (handler: unknown): Validation | undefined => (handler as { validation?: Validation }).validation;

/** The request body parsed and checked at the edge with the core's schema; handlers read it as c.req.valid("json"). */
export const json = <S extends z.ZodType>(schema: S, code: string, what: string, options: { depthJudgedByGuard?: boolean } = {}) =>
  validating<MiddlewareHandler<Env, string, Validated<"json", S>>>(
    async (c, next) => {
      c.req.addValidatedData("json", parseOr(schema, await readJson(c, options), code, what) as object);
      await next();
    },
    { target: "json", schema, code },
  );

/** The query string checked at the edge; handlers read it as c.req.valid("query"). */
export const query = <S extends z.ZodType>(schema: S) =>
  validating<MiddlewareHandler<Env, string, Validated<"query", S>>>(
    async (c, next) => {
      c.req.addValidatedData("query", parseOr(schema, c.req.query(), "invalid_query", "The query string") as object);
      await next();
    },
    { target: "query", schema, code: "invalid_query" },
  );
