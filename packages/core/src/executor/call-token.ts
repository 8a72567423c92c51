import { createECDH, createPrivateKey, createPublicKey, hkdfSync } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { argumentsHash as canonicalHash, CALL_TOKEN_ALGORITHM, CALL_TOKEN_HEADER, CALL_TOKEN_ISSUER, callTokenPayload, signedJwt } from "@toolgate/module/call-token";
import type { CallTokenClaims } from "@toolgate/module/call-token";
import { guardError } from "../guard/errors";

// The token's format is the module SDK's: what it checks is what toolgate signs.
export { CALL_TOKEN_HEADER, CALL_TOKEN_ISSUER };

/** How long one key signs. Its public key is published one period before and after, so a module fetches it early and checks a late token. */
export const CALL_KEY_PERIOD_MS = 24 * 60 * 60 * 1000;
/** The order of P-256's base point: a private key is a number from 1 to this less one. */
const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

/** What a call token says: the call, who makes it, what runs, for whom it is meant (the executor's URL), the arguments, and the call's timeout. */
export type CallClaims = Omit<CallTokenClaims, "argumentsHash" | "deadline"> & { arguments: Record<string, unknown>; timeoutMs: number };

export type CallKey = { kid: string; privateKey: KeyObject; publicJwk: Record<string, unknown> };

/**
 * The call token header of each request a call sends, a token of its own every time (a module takes each token once):
 * the first signed ahead, the others when they are asked for; all with the call's deadline.
 */
export type CallTokens = () => Record<string, string>;

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
 * The P-256 key of one period: its private number from 48 bytes of HKDF-SHA-256 of the signing key, reduced to 1..n-1
 * as FIPS 186-5 (A.2.1) makes one from random bits, so every instance derives the same key.
 */
function periodKey(signingKey: string, period: number): KeyObject {
  const bytes = Buffer.from(hkdfSync("sha256", signingKey, "toolgate call keys", `ES256 period ${period}`, 48));
  const d = (BigInt(`0x${bytes.toString("hex")}`) % (P256_ORDER - 1n)) + 1n;
  const privateBytes = Buffer.from(d.toString(16).padStart(64, "0"), "hex");
  const ecdh = createECDH("prime256v1");
  ecdh.setPrivateKey(privateBytes);
  const point = ecdh.getPublicKey();
  const base64url = (part: Buffer) => part.toString("base64url");
  return createPrivateKey({
    key: { kty: "EC", crv: "P-256", d: base64url(privateBytes), x: base64url(point.subarray(1, 33)), y: base64url(point.subarray(33)) },
    format: "jwk",
  });
}

/**
 * Signs call tokens (ES256) with P-256 keys derived from toolgate's signing key, one per period: every instance derives
 * the same key for the same period, so nothing is stored, keys rotate on their own, and a module that fetched the
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
    const privateKey = periodKey(this.signingKey, period);
    const kid = `call-${period}`;
    const publicJwk = { ...createPublicKey(privateKey).export({ format: "jwk" }), kid, alg: CALL_TOKEN_ALGORITHM, use: "sig" };
    const key = { kid, privateKey, publicJwk };
    if (this.keys.size >= 4) this.keys.delete(this.keys.keys().next().value!);
    this.keys.set(period, key);
    return key;
  }

  /** The published keys: the last period's (its tokens may still be valid), this one's, and the next one's. */
  jwks(now = Date.now()): Jwks {
    return { keys: [now - CALL_KEY_PERIOD_MS, now, now + CALL_KEY_PERIOD_MS].map((at) => this.keyAt(at).publicJwk) };
  }

  /** One token for one request of a call that starts `now`: its deadline is `now` plus the call's timeout. */
  async sign(claims: CallClaims, now = Date.now()): Promise<string> {
    return this.#signed(this.#claimsOf(claims, now + claims.timeoutMs), now);
  }

  /**
   * The tokens of a call that starts `now` (see CallTokens): the first is signed here, so a call made ready before its
   * admission stands waits for no signature once it does. Arguments that have no hash fail here, before anything is sent.
   */
  tokensFor(claims: CallClaims, now = Date.now()): CallTokens {
    const signing = this.#claimsOf(claims, now + claims.timeoutMs);
    let ahead: string | undefined = this.#signed(signing, now);
    return () => {
      const token = ahead ?? this.#signed(signing, Date.now());
      ahead = undefined;
      return { [CALL_TOKEN_HEADER]: token };
    };
  }

  #claimsOf({ arguments: args, timeoutMs: _timeoutMs, department, ...call }: CallClaims, deadline: number): CallTokenClaims {
    return { ...call, ...(department ? { department } : {}), argumentsHash: argumentsHash(args, call.tool), deadline };
  }

  #signed(claims: CallTokenClaims, now: number): string {
    const { kid, privateKey } = this.keyAt(now);
    return signedJwt(kid, callTokenPayload(claims, now), privateKey);
  }
}
