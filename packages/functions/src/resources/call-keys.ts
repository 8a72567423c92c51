import { Hono } from "hono";
import { API } from "../routes";
import type { Env } from "../http/app";
import { method, path } from "../http/route";

const R = API.execution.callKeys;
/** How long a module may keep the published keys: well within the period each signs for, which starts a period after it is published. */
const CACHE_SECONDS = 60 * 60;

/** The public keys of the call tokens toolgate signs (a JWK Set): what a module checks every request it receives against. */
export const callKeys = new Hono<Env>().on(method(R.jwks), path(R.jwks), (c) =>
  c.json(c.get("toolgate").signer.jwks(), 200, { "cache-control": `public, max-age=${CACHE_SECONDS}` }),
);
