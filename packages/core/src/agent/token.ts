import { createSecretKey } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { BoundedMap } from "../bounded";

const ISSUER = "toolgate";
const AUDIENCE = "toolgate:agent";
const MIN_KEY_LENGTH = 32;

/** Loaded when a token is first signed or checked, not when a function starts. */
const jose = () => import("jose");

export type TokenClaims = { agentId: string; tokenVersion: number };

/**
 * Signs and verifies agent tokens (HS256). A token is verified once per process: its claims are remembered,
 * which is safe because whether those claims are still honoured (token version, agent status) is checked
 * against the store on every use.
 */
export class TokenSigner {
  private readonly key: KeyObject;
  private readonly verified = new BoundedMap<string, TokenClaims>();

  constructor(signingKey: string) {
    if (signingKey.length < MIN_KEY_LENGTH)
      throw new Error(`The token signing key must be at least ${MIN_KEY_LENGTH} characters long.`);
    this.key = createSecretKey(Buffer.from(signingKey, "utf8"));
  }

  async sign(claims: TokenClaims): Promise<string> {
    const { SignJWT } = await jose();
    return new SignJWT({ tv: claims.tokenVersion })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(claims.agentId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .sign(this.key);
  }

  /** The claims of a token this service signed, or undefined for anything else. */
  async verify(token: string): Promise<TokenClaims | undefined> {
    const known = this.verified.get(token);
    if (known) return known;
    try {
      const { jwtVerify } = await jose();
      const { payload } = await jwtVerify(token, this.key, { issuer: ISSUER, audience: AUDIENCE, algorithms: ["HS256"] });
      if (typeof payload.sub !== "string" || typeof payload.tv !== "number") return undefined;
      const claims = { agentId: payload.sub, tokenVersion: payload.tv };
      this.verified.set(token, claims);
      return claims;
    } catch {
      return undefined;
    }
  }
}
