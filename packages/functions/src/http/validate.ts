import type { MiddlewareHandler } from "hono";
import type { z } from "zod";
import type { ErrorCatalog, ErrorStatus } from "@toolgate/core/error";
import { parseOr } from "@toolgate/core/validation";
import type { Env } from "./app";
import { readJson } from "./app";
import { HTTP_ERRORS } from "./errors";

type Validated<Target extends "json" | "query", S extends z.ZodType> = { in: { [K in Target]: z.input<S> }; out: { [K in Target]: z.output<S> } };

/** What a validator checks and the catalog's code it refuses with, kept on the middleware so GET /openapi.json documents exactly what the edge enforces. */
export type Validation = { target: "json" | "query"; schema: z.ZodType; code: string; status: ErrorStatus };

const validating = <M extends MiddlewareHandler>(middleware: M, validation: Validation) => Object.assign(middleware, { validation });

/** The validation a route's middleware performs, if it is one of these validators. */
export const validationOf = (handler: unknown): Validation | undefined => (handler as { validation?: Validation }).validation;

/** The request body parsed and checked at the edge with the core's schema; handlers read it as c.req.valid("json"). */
export const json = <S extends z.ZodType, C extends ErrorCatalog>(
  schema: S,
  catalog: C,
  code: keyof C & string,
  what: string,
  options: { depthJudgedByGuard?: boolean } = {},
) =>
  validating<MiddlewareHandler<Env, string, Validated<"json", S>>>(
    async (c, next) => {
      c.req.addValidatedData("json", parseOr(schema, await readJson(c, options), catalog, code, what) as object);
      await next();
    },
    { target: "json", schema, code, status: catalog[code]! },
  );

/** The query string checked at the edge; handlers read it as c.req.valid("query"). */
export const query = <S extends z.ZodType>(schema: S) =>
  validating<MiddlewareHandler<Env, string, Validated<"query", S>>>(
    async (c, next) => {
      c.req.addValidatedData("query", parseOr(schema, c.req.query(), HTTP_ERRORS, "invalid_query", "The query string") as object);
      await next();
    },
    { target: "query", schema, code: "invalid_query", status: HTTP_ERRORS.invalid_query },
  );
