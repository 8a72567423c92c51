import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { expect, test } from "vitest";
import { CALL_TOKEN_CLOCK_SKEW_SECONDS } from "@toolgate/module/call-token";
import { argumentsHash, CALL_KEY_PERIOD_MS, CALL_TOKEN_HEADER, CALL_TOKEN_ISSUER, CallSigner } from "./call-token";

const KEY = "unit-signing-key-0123456789-0123456789";
const claims = {
  callId: "call_1",
  agentId: "agt_1",
  roleId: "rol_1",
  department: "research",
  tool: "read_file",
  audience: "https://files.example.com/run",
  arguments: { path: "notes.md", lines: [1, 2] },
  timeoutMs: 30_000,
};
const NOW = Date.UTC(2026, 10, 25, 12);

const verify = (token: string, keys: ReturnType<CallSigner["jwks"]>, at: number, audience = claims.audience) =>
  jwtVerify(token, createLocalJWKSet(keys), { issuer: CALL_TOKEN_ISSUER, audience, currentDate: new Date(at) });

test("a call token names the call, the agent, its role and department, the tool, the executor and the arguments' hash, checked against the published keys; it expires at the call's deadline", async () => {
  const signer = new CallSigner(KEY);
  const token = await signer.sign(claims, NOW);
  const { payload } = await verify(token, signer.jwks(NOW), NOW);
  expect(payload).toMatchObject({
    iss: "toolgate",
    aud: claims.audience,
    sub: "agt_1",
    call: "call_1",
    jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
    tool: "read_file",
    role: "rol_1",
    department: "research",
    args: argumentsHash({ lines: [1, 2], path: "notes.md" }, "read_file"),
  });
  expect(payload.deadline).toBe(NOW + 30_000);
  expect(payload.exp).toBe((NOW + 30_000) / 1000 + CALL_TOKEN_CLOCK_SKEW_SECONDS);
  await expect(verify(token, signer.jwks(NOW), NOW, "https://elsewhere.example.com/run")).rejects.toThrow(/aud/);
  await expect(verify(token, signer.jwks(NOW), NOW + 30_000 + CALL_TOKEN_CLOCK_SKEW_SECONDS * 1000)).rejects.toThrow(/exp/);
});

test("every instance derives the same keys from the signing key; another signing key signs tokens the first's keys refuse", async () => {
  const [one, other] = [new CallSigner(KEY), new CallSigner(KEY)];
  expect(other.jwks(NOW)).toEqual(one.jwks(NOW));
  const stranger = new CallSigner("another-signing-key-0123456789-012345");
  await expect(verify(await stranger.sign(claims, NOW), one.jwks(NOW), NOW)).rejects.toThrow();
});

test("keys rotate each period without a gap: a token signed at a period's end is checked with the keys published after it", async () => {
  const signer = new CallSigner(KEY);
  const lastMoment = Math.ceil(NOW / CALL_KEY_PERIOD_MS) * CALL_KEY_PERIOD_MS - 1;
  const token = await signer.sign(claims, lastMoment);
  const next = lastMoment + 1;
  expect(decodeProtectedHeader(token).kid).not.toBe(signer.keyAt(next).kid);
  await expect(verify(token, signer.jwks(next), next)).resolves.toBeDefined();
  expect(signer.jwks(next).keys.map((key) => key.kid)).toContain(signer.keyAt(next + CALL_KEY_PERIOD_MS).kid);
  expect(signer.jwks(next + 2 * CALL_KEY_PERIOD_MS).keys.map((key) => key.kid)).not.toContain(decodeProtectedHeader(token).kid);
});

test("the arguments' hash is that of their canonical JSON: key order and spacing do not change it; a lone surrogate is invalid_arguments", () => {
  expect(argumentsHash({ b: 1, a: { d: [1, "x"], c: null } }, "t")).toBe(argumentsHash(JSON.parse('{ "a": {"c":null, "d":[1,"x"]}, "b":1.0 }'), "t"));
  expect(argumentsHash({ a: 1 }, "t")).not.toBe(argumentsHash({ a: 2 }, "t"));
  expect(() => argumentsHash({ text: "\ud800" }, "t")).toThrow(expect.objectContaining({ status: 400, code: "invalid_arguments" }));
});

test("tokensFor - each request of a call gets a token of its own (its own jti), every one naming the call and its one deadline; the first is signed ahead", async () => {
  const signer = new CallSigner(KEY);
  const now = Date.now();
  const tokens = signer.tokensFor(claims, now);
  const sent = [tokens(), tokens(), tokens()].map((headers) => headers[CALL_TOKEN_HEADER]!);
  const payloads = await Promise.all(sent.map(async (token) => (await verify(token, signer.jwks(now), now)).payload));
  expect(new Set(payloads.map((payload) => payload.jti)).size).toBe(3);
  const deadline = now + claims.timeoutMs;
  for (const payload of payloads) expect(payload).toMatchObject({ call: "call_1", deadline, exp: Math.ceil(deadline / 1000) + CALL_TOKEN_CLOCK_SKEW_SECONDS });
  expect(payloads[0]!.iat).toBe(Math.floor(now / 1000));
  expect(() => signer.tokensFor({ ...claims, arguments: { text: "\ud800" } }, now)).toThrow(expect.objectContaining({ code: "invalid_arguments" }));
});
