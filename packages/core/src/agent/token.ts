import { createSecretKey } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { BoundedMap } from "../bounded";

const ISSUER = "toolgate";
/** Whom a token is for: an agent, or an answering token (which only answers agents' questions). */
const AUDIENCES = { agent: "toolgate:agent", answerer: "toolgate:answerer" } as const;
const MIN_KEY_LENGTH = 32;

/** Loaded when a token is first signed or checked, not when a function starts. */
const jose = () => import("jose");

const DAY_SECONDS = 24 * 60 * 60;

export type TokenClaims = { agentId: string; tokenVersion: number };
export type AnswererClaims = { answerTokenId: string };

/**
 * What a token this service signed says it is: an agent's token (of a version, honoured until `expiresAt`, epoch
 * seconds), or an answering token.
 */
export type VerifiedClaims = ({ kind: "agent"; expiresAt: number } & TokenClaims) | ({ kind: "answerer" } & AnswererClaims);

type Payload = { sub?: unknown; aud?: unknown; tv?: unknown; iat?: unknown; exp?: unknown };

function claimsOf(payload: Payload, tokenDays: number): VerifiedClaims | undefined {
  if (typeof payload.sub !== "string") return undefined;
  if (payload.aud === AUDIENCES.agent && typeof payload.tv === "number") {
    // A token issued before tokens carried exp is honoured for as long after its issue as a new one is.
    const expiresAt = typeof payload.exp === "number" ? payload.exp : typeof payload.iat === "number" ? payload.iat + tokenDays * DAY_SECONDS : 0;
    return { kind: "agent", agentId: payload.sub, tokenVersion: payload.tv, expiresAt };
  }
  if (payload.aud === AUDIENCES.answerer) return { kind: "answerer", answerTokenId: payload.sub };
  return undefined;
}

/**
 * Signs and verifies agent tokens and answering tokens (HS256, each kind its own audience). A token is verified once
 * per process: its claims are remembered, which is safe because whether those claims are still honoured (an agent's
 * token version and status, an answering token not revoked) is checked against the store on every use.
 */
export class TokenSigner {
  private readonly key: KeyObject;
  private readonly verified = new BoundedMap<string, VerifiedClaims>();

  constructor(
    signingKey: string,
    private readonly agentTokenDays = 90,
  ) {
    if (signingKey.length < MIN_KEY_LENGTH)
      throw new Error(`The token signing key must be at least ${MIN_KEY_LENGTH} characters long.`);
    this.key = createSecretKey(Buffer.from(signingKey, "utf8"));
  }

  /** When an agent's token issued now expires (TOOLGATE_AGENT_TOKEN_DAYS after it). */
  agentTokenExpiry(now: string): string {
    return new Date(Date.parse(now) + this.agentTokenDays * DAY_SECONDS * 1000).toISOString();
  }

  /** An agent's token, honoured until `expiresAt` (agentTokenExpiry). */
  sign(claims: TokenClaims & { expiresAt: string }): Promise<string> {
    return this.signFor(AUDIENCES.agent, claims.agentId, { tv: claims.tokenVersion, exp: Math.floor(Date.parse(claims.expiresAt) / 1000) });
  }

  /** An answering token: it names only the stored token it was issued as, which revoking deletes. */
  signAnswerer(claims: AnswererClaims): Promise<string> {
    return this.signFor(AUDIENCES.answerer, claims.answerTokenId, {});
  }

  private async signFor(audience: string, subject: string, extra: Record<string, unknown>): Promise<string> {
    const { SignJWT } = await jose();
    return new SignJWT(extra)
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(subject)
      .setIssuer(ISSUER)
      .setAudience(audience)
      .setIssuedAt()
      .sign(this.key);
  }

  /**
   * The claims of a token this service signed, or undefined for anything else. An agent's token past its expiry keeps
   * its claims (`expiresAt` says so), for the refusal to say when it expired; jose's own check of exp is left to that.
   */
  async verify(token: string): Promise<VerifiedClaims | undefined> {
    const known = this.verified.get(token);
    if (known) return known;
    try {
      const { jwtVerify } = await jose();
      const { payload } = await jwtVerify(token, this.key, { issuer: ISSUER, audience: Object.values(AUDIENCES), algorithms: ["HS256"], currentDate: new Date(0) });
      const claims = claimsOf(payload, this.agentTokenDays);
      if (claims) this.verified.set(token, claims);
      return claims;
    } catch {
      return undefined;
    }
  }
}
