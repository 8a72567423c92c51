import { createPrivateKey, createPublicKey, hkdfSync } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { argumentsHash as canonicalHash, CALL_TOKEN_GRACE_SECONDS, CALL_TOKEN_HEADER, CALL_TOKEN_ISSUER, signedJwt } from "@toolgate/module/call-token";
import { guardError } from "../guard/errors";

// The token's format is the module SDK's: what it checks is what toolgate signs.
export { CALL_TOKEN_HEADER, CALL_TOKEN_ISSUER };

/** How long one key signs. Its public key is published one period before and after, so a module fetches it early and checks a late token. */
export const CALL_KEY_PERIOD_MS = 24 * 60 * 60 * 1000;
const ALGORITHM = "EdDSA";
/** DER of an Ed25519 PKCS #8 private key, up to its 32 private-key bytes (RFC 8410). */
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

/** The hash a call token carries of its arguments (the SDK's, which a module checks); arguments that have none are invalid_arguments. */
export function argumentsHash(args: Record<string, unknown>, tool: string): string {
  try {
    return canonicalHash(args);
  } catch {
    throw guardError("invalid_arguments", `The arguments for "${tool}" hold text that is not well-formed Unicode (a lone surrogate); send them as valid UTF-8 text.`, {
      toolName: tool,
      recoverable: true,
    });
  }
}

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
    const keyBytes = Buffer.from(hkdfSync("sha256", this.signingKey, "toolgate call keys", `period ${period}`, 32));
    const privateKey = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, keyBytes]), format: "der", type: "pkcs8" });
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
    const { kid, privateKey } = this.keyAt(now);
    const issuedAt = Math.floor(now / 1000);
    return signedJwt(
      kid,
      {
        tool: claims.tool,
        role: claims.roleId,
        ...(claims.department ? { department: claims.department } : {}),
        args: argumentsHash(claims.arguments, claims.tool),
        deadline: now + claims.timeoutMs,
        iss: CALL_TOKEN_ISSUER,
        aud: claims.audience,
        sub: claims.agentId,
        jti: claims.callId,
        iat: issuedAt,
        exp: issuedAt + Math.ceil(claims.timeoutMs / 1000) + CALL_TOKEN_GRACE_SECONDS,
      },
      privateKey,
    );
  }
}
