import { hash, randomUUID } from "node:crypto";
import canonicalize from "canonicalize";
import { createRemoteJWKSet } from "jose";
import type { JWTPayload, JWTVerifyGetKey } from "jose";
import { processReplayStore } from "./replay.js";
import type { ReplayStore } from "./replay.js";
import { TokenInvalid, verifiedPayload } from "./signature.js";

export { CALL_TOKEN_ALGORITHM, signedJwt } from "./signature.js";

/** The header every request toolgate sends a module carries: a JWT saying which call it is, signed by toolgate. */
export const CALL_TOKEN_HEADER = "toolgate-call";
export const CALL_TOKEN_ISSUER = "toolgate";
/**
 * A token outlives its call's deadline by this much, for the clocks of toolgate and the module to differ a little: the
 * one allowance in a token's life.
 */
export const CALL_TOKEN_CLOCK_SKEW_SECONDS = 5;
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

/**
 * What toolgate signs for one request of a call: the call, the agent making it, its role and department, the tool as
 * the executor knows it, the executor's URL, the arguments' hash, and the call's deadline (ms since 1970: when toolgate
 * stops waiting).
 */
export type CallTokenClaims = {
  callId: string;
  agentId: string;
  roleId: string;
  department?: string | null;
  tool: string;
  audience: string;
  argumentsHash: string;
  deadline: number;
};

/**
 * A call token's payload, issued at `now` (ms since 1970). Its `jti` is its own: a call whose requests are several
 * (an MCP module's handshake and tools/call, a call that goes on after a pause) sends each with a token of its own, and
 * a module takes each token once. `call` names the call; `exp` is the deadline, with the clock skew allowed.
 */
export const callTokenPayload = (claims: CallTokenClaims, now: number): JWTPayload => ({
  tool: claims.tool,
  role: claims.roleId,
  ...(claims.department ? { department: claims.department } : {}),
  args: claims.argumentsHash,
  deadline: claims.deadline,
  iss: CALL_TOKEN_ISSUER,
  aud: claims.audience,
  sub: claims.agentId,
  call: claims.callId,
  jti: randomUUID(),
  iat: Math.floor(now / 1000),
  exp: Math.ceil(claims.deadline / 1000) + CALL_TOKEN_CLOCK_SKEW_SECONDS,
});

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

/** `replayStore`: where the ids of accepted tokens are kept (by default this process's memory). */
export type VerifyOptions = { replayStore?: ReplayStore };

/** The call a token names: its `call` claim, or its `jti` in a token of a toolgate that signed one token a call. */
const callIdOf = (payload: JWTPayload) => (typeof payload.call === "string" ? payload.call : payload.jti);

/**
 * Checks a request's call token: toolgate's signature, issued for `audience` (the module's URL as toolgate calls it),
 * not expired, naming this very call (its id, agent, tool and arguments), and never accepted before (its `jti`,
 * recorded in the replay store until it expires). Throws CallRefused saying why.
 */
export async function verifyCallToken(
  token: string | null | undefined,
  call: SignedCall,
  keys: JWTVerifyGetKey,
  audience: string,
  { replayStore = processReplayStore }: VerifyOptions = {},
): Promise<VerifiedCall> {
  if (!token) throw new CallRefused(`The request carries no ${CALL_TOKEN_HEADER} token: this module runs only calls toolgate signed.`);
  let payload: JWTPayload;
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
  const same = named("callId", callIdOf(payload)) && named("agentId", payload.sub) && payload.tool === call.tool && payload.args === sentHash;
  if (!same) throw new CallRefused(`The ${CALL_TOKEN_HEADER} token was signed for another call: its call, agent, tool or arguments differ from the request's.`);
  if (typeof payload.jti !== "string" || payload.jti === "") throw new CallRefused(`The ${CALL_TOKEN_HEADER} token has no id (jti), so this module cannot take it only once.`);
  if (!(await replayStore.claim(payload.jti, payload.exp!)))
    throw new CallRefused(`The ${CALL_TOKEN_HEADER} token was already used: toolgate signs every request with a token of its own, so this is a replay, and nothing runs.`);
  return {
    callId: String(callIdOf(payload)),
    tool: String(payload.tool),
    agent: { id: String(payload.sub), role: String(payload.role), ...(typeof payload.department === "string" ? { department: payload.department } : {}) },
    deadline: typeof payload.deadline === "number" ? payload.deadline : (payload.exp! - CALL_TOKEN_CLOCK_SKEW_SECONDS) * 1000,
  };
}
