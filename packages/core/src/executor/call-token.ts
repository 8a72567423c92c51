import { createHash, createPrivateKey, createPublicKey, hkdfSync } from "node:crypto";
import type { KeyObject } from "node:crypto";
import canonicalize from "canonicalize";
import { guardError } from "../guard/errors";

/** The header every request toolgate sends an executor carries: a JWT saying which call it is, signed by toolgate. */
export const CALL_TOKEN_HEADER = "toolgate-call";
export const CALL_TOKEN_ISSUER = "toolgate";
/** How long one key signs. Its public key is published one period before and after, so a module fetches it early and checks a late token. */
export const CALL_KEY_PERIOD_MS = 24 * 60 * 60 * 1000;
/** A token outlives its call's timeout by this much, for the clocks of toolgate and the module to differ a little. */
const CLOCK_SKEW_S = 30;
const ALGORITHM = "EdDSA";
/** DER of an Ed25519 PKCS #8 private key, up to its 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/** What a call token says: the call, who makes it, what runs, for whom it is meant (the executor's URL) and the arguments' hash. */
export type CallClaims = {
  callId: string;
  agentId: string;
  roleId: string;
  department?: string | null;
  tool: string;
  audience: string;
  arguments: Record<string, unknown>;
  timeoutMs: number;
};

export type CallKey = { kid: string; privateKey: KeyObject; publicJwk: Record<string, unknown> };
export type Jwks = { keys: Array<Record<string, unknown>> };

/**
 * The hash a call token carries of its arguments: SHA-256 of their RFC 8785 (JCS) form, base64url. A module computes
 * it from the arguments it received, whatever order or spacing their JSON came in.
 */
export function argumentsHash(args: Record<string, unknown>, tool: string): string {
  let canonical: string | undefined;
  try {
    canonical = canonicalize(args);
  } catch {
    throw guardError("invalid_arguments", `The arguments for "${tool}" hold text that is not well-formed Unicode (a lone surrogate); send them as valid UTF-8 text.`, {
      toolName: tool,
      recoverable: true,
    });
  }
  return createHash("sha256").update(canonical ?? "null").digest("base64url");
}

let jose: Promise<typeof import("jose")> | undefined;
const loadJose = () => (jose ??= import("jose"));

/**
 * Signs call tokens with Ed25519 keys derived from toolgate's signing key, one per period: every instance derives the
 * same key for the same period, so nothing is stored, keys rotate on their own, and a module that fetched the
 * published keys checks any instance's tokens. A new signing key replaces every call key at once.
 */
export class CallSigner {
  private readonly keys = new Map<number, CallKey>();

  constructor(private readonly signingKey: string) {}

  /** The key of the period `at` falls in. */
  keyAt(at: number): CallKey {
    const period = Math.floor(at / CALL_KEY_PERIOD_MS);
    const known = this.keys.get(period);
    if (known) return known;
    const seed = Buffer.from(hkdfSync("sha256", this.signingKey, "toolgate call keys", `period ${period}`, 32));
    const privateKey = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" });
    const kid = `call-${period}`;
    const publicJwk = { ...createPublicKey(privateKey).export({ format: "jwk" }), kid, alg: ALGORITHM, use: "sig" };
    const key = { kid, privateKey, publicJwk };
    if (this.keys.size >= 4) this.keys.delete(this.keys.keys().next().value!);
    this.keys.set(period, key);
    return key;
  }

  /** The published keys: the last period's (its tokens may still be valid), this one's, and the next one's. */
  jwks(now = Date.now()): Jwks {
    return { keys: [now - CALL_KEY_PERIOD_MS, now, now + CALL_KEY_PERIOD_MS].map((at) => this.keyAt(at).publicJwk) };
  }

  /** A token for one request of one call, valid for the call's timeout. */
  async sign(claims: CallClaims, now = Date.now()): Promise<string> {
    const { SignJWT } = await loadJose();
    const { kid, privateKey } = this.keyAt(now);
    const issuedAt = Math.floor(now / 1000);
    return new SignJWT({
      tool: claims.tool,
      role: claims.roleId,
      ...(claims.department ? { department: claims.department } : {}),
      args: argumentsHash(claims.arguments, claims.tool),
    })
      .setProtectedHeader({ alg: ALGORITHM, kid, typ: "JWT" })
      .setIssuer(CALL_TOKEN_ISSUER)
      .setAudience(claims.audience)
      .setSubject(claims.agentId)
      .setJti(claims.callId)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + Math.ceil(claims.timeoutMs / 1000) + CLOCK_SKEW_S)
      .sign(privateKey);
  }
}
