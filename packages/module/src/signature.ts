import { createPublicKey, KeyObject, sign, verify } from "node:crypto";
import type { JWK, JWSHeaderParameters, JWTPayload, JWTVerifyGetKey } from "jose";

/** Why a token is not toolgate's, current and for this module: the sentence CallRefused gives. */
export class TokenInvalid extends Error {}

/** Keys as node:crypto holds them, by the object the key set answered with (jose's own keys are cached and reused). */
const keyObjects = new WeakMap<object, KeyObject>();

function keyObjectOf(key: Awaited<ReturnType<JWTVerifyGetKey>>): KeyObject {
  if (key instanceof Uint8Array) throw new TokenInvalid("the key set answered with a secret, not a public key");
  let object = key instanceof KeyObject ? key : keyObjects.get(key);
  if (!object) {
    object = key instanceof CryptoKey ? KeyObject.from(key) : createPublicKey({ key: key as JWK & { kty: string }, format: "jwk" });
    keyObjects.set(key, object);
  }
  if (object.type !== "public" || object.asymmetricKeyType !== "ec" || object.asymmetricKeyDetails?.namedCurve !== "prime256v1")
    throw new TokenInvalid("the key set answered with a key that is not a P-256 public key");
  return object;
}

/** The JWS algorithm of call tokens: ECDSA on P-256 with SHA-256 (RFC 7518), its signature r || s. */
export const CALL_TOKEN_ALGORITHM = "ES256";
const SIGNATURE = { hash: "sha256", dsaEncoding: "ieee-p1363" } as const;

/** A key the set answered with, and until when it is taken without asking the set again. */
type KnownKey = { key: KeyObject; until: number };

/**
 * How long a key the set answered with for a `kid` is used without asking it again: far less than jose's remote set
 * caches its keys (10 minutes), so a key toolgate stops publishing is refused as soon as jose would refuse it.
 */
export const KNOWN_KEY_MS = 60_000;

/** The keys each set answered with, by `kid`: one call is one signature check, not a walk through jose's key set. */
const knownKeys = new WeakMap<JWTVerifyGetKey, Map<string, KnownKey>>();

async function keyFor(keys: JWTVerifyGetKey, header: JWSHeaderParameters, parts: string[]): Promise<KeyObject> {
  const kid = typeof header.kid === "string" ? header.kid : undefined;
  const known = kid === undefined ? undefined : knownKeys.get(keys)?.get(kid);
  if (known && known.until > Date.now()) return known.key;
  let answered: Awaited<ReturnType<JWTVerifyGetKey>>;
  try {
    answered = await keys({ ...header, alg: CALL_TOKEN_ALGORITHM }, { payload: parts[1]!, signature: parts[2]! });
  } catch (error) {
    throw new TokenInvalid(error instanceof Error ? error.message : String(error));
  }
  const key = keyObjectOf(answered);
  if (kid !== undefined) {
    let byKid = knownKeys.get(keys);
    if (!byKid) knownKeys.set(keys, (byKid = new Map()));
    const now = Date.now();
    for (const [stale, { until }] of byKid) if (until <= now) byKid.delete(stale);
    byKid.set(kid, { key, until: now + KNOWN_KEY_MS });
  }
  return key;
}

/** A token's header or payload: base64url JSON of an object (the signature covers the encoded text, not this reading). */
function decodedPart(part: string, what: string): Record<string, unknown> {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  } catch {
    throw new TokenInvalid(`its ${what} is not base64url-encoded JSON`);
  }
  if (decoded === null || typeof decoded !== "object" || Array.isArray(decoded)) throw new TokenInvalid(`its ${what} is not a JSON object`);
  return decoded as Record<string, unknown>;
}

/**
 * A JWT signed with ES256 by a key of the set, issued by `issuer` for `audience`, and current (`exp` in the future,
 * `nbf` if any in the past): its payload, else TokenInvalid saying what is wrong. jose's key set finds the key (its
 * remote set fetches, caches and refetches for an unknown `kid`); the signature is checked with node:crypto: on Node
 * 20, 65 µs a token, where an Ed25519 signature takes 107 µs and WebCrypto's check twice that (the bench's
 * sdk_call_overhead_p50_ms).
 */
export async function verifiedPayload(token: string, keys: JWTVerifyGetKey, issuer: string, audience: string): Promise<JWTPayload> {
  const parts = token.split(".");
  if (parts.length !== 3) throw new TokenInvalid("it is not a signed JWT (three dot-separated parts)");
  const header = decodedPart(parts[0]!, "header") as JWSHeaderParameters;
  const payload = decodedPart(parts[1]!, "payload") as JWTPayload;
  if (header.alg !== CALL_TOKEN_ALGORITHM) throw new TokenInvalid(`its algorithm is ${JSON.stringify(header.alg)}, not ${CALL_TOKEN_ALGORITHM}`);
  if (header.crit !== undefined || header.b64 !== undefined) throw new TokenInvalid("it names header parameters this module does not understand (crit, b64)");
  const key = await keyFor(keys, header, parts);
  const signed = Buffer.from(`${parts[0]}.${parts[1]}`);
  if (!verify(SIGNATURE.hash, signed, { key, dsaEncoding: SIGNATURE.dsaEncoding }, Buffer.from(parts[2]!, "base64url")))
    throw new TokenInvalid("signature verification failed");
  const now = Math.floor(Date.now() / 1000);
  if (payload.iss !== issuer) throw new TokenInvalid(`unexpected "iss" claim value`);
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (!audiences.includes(audience)) throw new TokenInvalid(`unexpected "aud" claim value`);
  if (typeof payload.exp !== "number") throw new TokenInvalid(`missing required "exp" claim`);
  if (payload.exp <= now) throw new TokenInvalid(`"exp" claim timestamp check failed`);
  if (payload.nbf !== undefined && (typeof payload.nbf !== "number" || payload.nbf > now)) throw new TokenInvalid(`"nbf" claim timestamp check failed`);
  if (payload.iat !== undefined && typeof payload.iat !== "number") throw new TokenInvalid(`"iat" claim must be a number`);
  return payload;
}

const base64urlJson = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/**
 * A JWT in JWS compact form, signed with ES256 by `privateKey` (a P-256 key): what jose's SignJWT makes, with the
 * signature made by node:crypto (25 µs a token on Node 20; WebCrypto takes several times that), as toolgate signs one
 * for every call it sends an executor.
 */
export function signedJwt(kid: string, payload: JWTPayload, privateKey: KeyObject): string {
  const signingInput = `${base64urlJson({ alg: CALL_TOKEN_ALGORITHM, kid, typ: "JWT" })}.${base64urlJson(payload)}`;
  const signature = sign(SIGNATURE.hash, Buffer.from(signingInput), { key: privateKey, dsaEncoding: SIGNATURE.dsaEncoding });
  return `${signingInput}.${signature.toString("base64url")}`;
}
