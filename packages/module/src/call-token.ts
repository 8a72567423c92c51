import { hash } from "node:crypto";
import canonicalize from "canonicalize";
import { createRemoteJWKSet } from "jose";
import { TokenInvalid, verifiedPayload } from "./signature.js";

export { CALL_TOKEN_ALGORITHM, signedJwt } from "./signature.js";
import type { JWTVerifyGetKey } from "jose";

/** The header every request toolgate sends a module carries: a JWT saying which call it is, signed by toolgate. */
export const CALL_TOKEN_HEADER = "toolgate-call";
export const CALL_TOKEN_ISSUER = "toolgate";
/** A token outlives its call's timeout by this much, for the clocks of toolgate and the module to differ a little. */
export const CALL_TOKEN_GRACE_SECONDS = 30;
/** Where toolgate publishes the keys it signs call tokens with. */
export const JWKS_PATH = "/.well-known/jwks.json";

/** Arguments holding a lone surrogate: they have no canonical form, so no call can be signed for them. */
export class NotCanonicalError extends Error {}

/**
 * The hash a call token carries of its arguments: SHA-256 of their RFC 8785 (JCS) form, base64url. The same whatever
 * order or spacing their JSON came in.
 */
export function argumentsHash(args: unknown): string {
  let canonical: string | undefined;
  try {
    canonical = canonicalize(args);
  } catch (error) {
    throw new NotCanonicalError(error instanceof Error ? error.message : String(error));
  }
  return hash("sha256", canonical ?? "null", "base64url");
}

/** What a verified call token says: the call, the agent making it, and the moment toolgate stops waiting for it. */
export type VerifiedCall = {
  callId: string;
  tool: string;
  agent: { id: string; role: string; department?: string };
  /** When the call's timeout ends (ms since 1970). */
  deadline: number;
};

/** Where keys come from: toolgate's published set (fetched, cached and refreshed by jose), or a set given directly. */
export const toolgateKeys = (toolgateUrl: string | URL): JWTVerifyGetKey => createRemoteJWKSet(new URL(JWKS_PATH, toolgateUrl));

export class CallRefused extends Error {}

/**
 * The call a request makes, as the token must name it: the same tool, and arguments with the token's hash; and, where
 * the request names them (an http executor's body does, an MCP tools/call does not), the same call and agent.
 */
export type SignedCall = { tool: unknown; arguments: unknown; callId?: unknown; agentId?: unknown };

/**
 * Checks a request's call token: toolgate's signature, issued for `audience` (the module's URL as toolgate calls it),
 * not expired, and naming this very call (its id, agent, tool and arguments). Throws CallRefused saying why.
 */
export async function verifyCallToken(token: string | null | undefined, call: SignedCall, keys: JWTVerifyGetKey, audience: string): Promise<VerifiedCall> {
  if (!token) throw new CallRefused(`The request carries no ${CALL_TOKEN_HEADER} token: this module runs only calls toolgate signed.`);
  let payload: Record<string, unknown>;
  try {
    payload = await verifiedPayload(token, keys, CALL_TOKEN_ISSUER, audience);
  } catch (error) {
    if (!(error instanceof TokenInvalid)) throw error;
    throw new CallRefused(`The ${CALL_TOKEN_HEADER} token is not valid for this module: ${error.message}.`);
  }
  let sentHash: string | undefined;
  try {
    sentHash = argumentsHash(call.arguments);
  } catch {
    sentHash = undefined;
  }
  const named = (key: "callId" | "agentId", claim: unknown) => !(key in call) || call[key] === claim;
  const same = named("callId", payload.jti) && named("agentId", payload.sub) && payload.tool === call.tool && payload.args === sentHash;
  if (!same) throw new CallRefused(`The ${CALL_TOKEN_HEADER} token was signed for another call: its call, agent, tool or arguments differ from the request's.`);
  return {
    callId: String(payload.jti),
    tool: String(payload.tool),
    agent: { id: String(payload.sub), role: String(payload.role), ...(typeof payload.department === "string" ? { department: payload.department } : {}) },
    deadline: typeof payload.deadline === "number" ? payload.deadline : (Number(payload.exp) - CALL_TOKEN_GRACE_SECONDS) * 1000,
  };
}
