import { jwtVerify, SignJWT } from "jose";

const ISSUER = "toolgate";
const AUDIENCE = "toolgate:agent";
const MIN_KEY_LENGTH = 32;

export type TokenClaims = { agentId: string; tokenVersion: number };

export class TokenSigner {
  private readonly key: Uint8Array;

  constructor(signingKey: string) {
    if (signingKey.length < MIN_KEY_LENGTH)
      throw new Error(`The token signing key must be at least ${MIN_KEY_LENGTH} characters long.`);
    this.key = new TextEncoder().encode(signingKey);
  }

  sign(claims: TokenClaims): Promise<string> {
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
    try {
      const { payload } = await jwtVerify(token, this.key, { issuer: ISSUER, audience: AUDIENCE, algorithms: ["HS256"] });
      if (typeof payload.sub !== "string" || typeof payload.tv !== "number") return undefined;
      return { agentId: payload.sub, tokenVersion: payload.tv };
    } catch {
      return undefined;
    }
  }
}
