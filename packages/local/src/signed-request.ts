import { createHash, timingSafeEqual } from "node:crypto";
import { Sha256 } from "@smithy/core/checksum";
import { HttpRequest } from "@smithy/core/protocols";
import { SignatureV4 } from "@smithy/signature-v4";
import type { AccessKeyPair } from "./secrets";

/** Who may call a local AWS-style endpoint: requests signed with this key pair, or carrying the admin token as a bearer token. */
export type LocalAccess = {
  credentials: AccessKeyPair;
  adminToken?: string;
  /** Where a person finds the key pair, for the refusal's message: "in <data dir>/local-aws-credentials.json". */
  where?: string;
};

export type Refusal = {
  type: "IncompleteSignatureException" | "InvalidSignatureException" | "UnrecognizedClientException";
  message: string;
};

export type IncomingRequest = { method: string; url: string; headers: Headers; body: Uint8Array };

/** As AWS: a signature is good for 5 minutes either side of its X-Amz-Date. */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;

const ALGORITHM = "AWS4-HMAC-SHA256";
const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

const sha256Hex = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

/** Compares two secrets in time that depends on neither (their digests have one length). */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(createHash("sha256").update(given).digest(), createHash("sha256").update(expected).digest());
}

/**
 * Why the request may not act, or undefined when it may: AWS Signature Version 4 recomputed with the SDK's own
 * signer over the headers the request says it signed, for service `events` in the region of its credential scope,
 * or `Authorization: Bearer <admin token>`.
 */
export async function refusal(request: IncomingRequest, access: LocalAccess, service: string, now = Date.now()): Promise<Refusal | undefined> {
  const how = `Sign it (AWS Signature Version 4, as the AWS SDK and CLI do) with the local access key pair${access.where ? ` ${access.where}` : ""}, or send the admin token as "Authorization: Bearer <admin token>".`;
  const authorization = request.headers.get("authorization");
  if (authorization === null) return incomplete(`The request is not signed. ${how}`);
  if (/^Bearer /i.test(authorization)) {
    const token = authorization.slice("Bearer ".length).trim();
    if (access.adminToken !== undefined && sameSecret(token, access.adminToken)) return undefined;
    return { type: "UnrecognizedClientException", message: `The bearer token is not the admin token. ${how}` };
  }
  if (!authorization.startsWith(`${ALGORITHM} `)) return incomplete(`The Authorization header is neither ${ALGORITHM} nor a bearer token. ${how}`);
  const parts = AUTHORIZATION.exec(authorization.trim());
  if (!parts) return incomplete(`The Authorization header needs Credential, SignedHeaders and Signature (a 64-digit hex string). ${how}`);
  const [, credential, signedHeaderList, signature] = parts as unknown as [string, string, string, string];
  const [accessKeyId, scopeDate, region, scopeService, terminator, ...rest] = credential.split("/");
  if (!accessKeyId || !scopeDate || !region || !scopeService || terminator !== "aws4_request" || rest.length > 0) {
    return incomplete(`The Credential must be <access key id>/<yyyymmdd>/<region>/${service}/aws4_request. ${how}`);
  }
  const signedHeaders = signedHeaderList.split(";");
  if (!signedHeaders.includes("host")) return incomplete(`The Host header must be among the SignedHeaders. ${how}`);
  const amzDate = request.headers.get("x-amz-date") ?? "";
  const signedAt = parseAmzDate(amzDate);
  if (signedAt === undefined) return incomplete(`The request needs an X-Amz-Date header (yyyymmddThhmmssZ). ${how}`);

  if (!sameSecret(accessKeyId, access.credentials.accessKeyId)) {
    return { type: "UnrecognizedClientException", message: `The access key id ${accessKeyId} is not this toolgate's. ${how}` };
  }
  if (Math.abs(now - signedAt.getTime()) > MAX_CLOCK_SKEW_MS) {
    return invalid(
      `Signature expired: its X-Amz-Date ${amzDate} is more than 5 minutes from this machine's time ${formatAmzDate(new Date(now))}. Sign each request when it is sent.`,
    );
  }
  if (scopeDate !== amzDate.slice(0, 8)) return invalid(`The date of the Credential scope (${scopeDate}) is not the date of X-Amz-Date (${amzDate}).`);
  if (scopeService !== service) return invalid(`The Credential should be scoped to the service '${service}', not '${scopeService}'.`);

  const claimedHash = request.headers.get("x-amz-content-sha256");
  if (claimedHash !== null && claimedHash !== sha256Hex(request.body)) return invalid("The X-Amz-Content-SHA256 header is not the SHA-256 of the request's body.");

  const expected = await expectedSignature(request, access.credentials, { signedHeaders, signedAt, region, service });
  const matches = expected !== undefined && timingSafeEqual(Buffer.from(expected), Buffer.from(signature));
  if (!matches) {
    return invalid("The request signature we calculated does not match the signature you provided. Check the secret access key and the signing method.");
  }
  return undefined;
}

type Signing = { signedHeaders: string[]; signedAt: Date; region: string; service: string };

/** The signature the SDK's signer makes for this request with the key pair, over the headers the request listed. */
async function expectedSignature(request: IncomingRequest, credentials: AccessKeyPair, signing: Signing): Promise<string | undefined> {
  const url = new URL(request.url);
  const headers: Record<string, string> = {};
  for (const name of signing.signedHeaders) {
    const value = request.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of url.searchParams) {
    const previous = query[key];
    query[key] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
  }
  const signer = new SignatureV4({ credentials, region: signing.region, service: signing.service, sha256: Sha256, applyChecksum: false });
  const signed = await signer.sign(
    new HttpRequest({ method: request.method, protocol: url.protocol, hostname: url.hostname, path: decodedPath(url.pathname), query, headers, body: request.body }),
    { signingDate: signing.signedAt, signableHeaders: new Set(signing.signedHeaders), signingRegion: signing.region, signingService: signing.service },
  );
  return /Signature=([0-9a-f]{64})$/.exec(String(signed.headers.authorization))?.[1];
}

/** The signer escapes the path as a client does before sending it, so it is given the path as the client had it. */
function decodedPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function parseAmzDate(text: string): Date | undefined {
  const match = AMZ_DATE.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second] = match.map(Number) as [number, number, number, number, number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  return Number.isNaN(date.getTime()) ? undefined : date;
}

const formatAmzDate = (date: Date) => date.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}Z$/, "Z");

const incomplete = (message: string): Refusal => ({ type: "IncompleteSignatureException", message });
const invalid = (message: string): Refusal => ({ type: "InvalidSignatureException", message });
