import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createLocalJWKSet, decodeJwt, UnsecuredJWT } from "jose";
import { afterEach, expect, test, vi } from "vitest";
import * as z from "zod";
import { CallSigner } from "@toolgate/core/executor";
import { defineModule, defineTool } from "./index.js";
import { CALL_TOKEN_CLOCK_SKEW_SECONDS } from "./call-token.js";
import { KNOWN_KEY_MS } from "./signature.js";

const URL_OF_MODULE = "http://notes.example.com/call";
const signer = new CallSigner("module-signing-key-0123456789-0123456789");
const keys = createLocalJWKSet(signer.jwks());
const ran: string[] = [];

const readNote = defineTool({
  name: "read_note",
  description: "Reads a note by its title.",
  parameters: z.object({ title: z.string().min(1).describe("The note's title"), lines: z.number().int().positive().optional() }),
  policy: { category: "notes" },
  execute: ({ title }, ctx) => {
    ran.push(title);
    return `${title} for ${ctx.agent.id} (${ctx.agent.role}, ${ctx.agent.department ?? "no department"}) in ${ctx.callId}`;
  },
});
const countNotes = defineTool({
  name: "count_notes",
  description: "Counts the notes.",
  parameters: z.object({}),
  execute: () => ({ notes: 3 }),
});
const waitForever = defineTool({
  name: "wait_forever",
  description: "Waits until the call's timeout.",
  parameters: z.object({}),
  execute: (_input, ctx) => new Promise((_, fail) => ctx.signal.addEventListener("abort", () => fail(new Error("aborted")), { once: true })),
});
const failing = defineTool({ name: "failing", description: "Fails.", parameters: z.object({}), execute: () => { throw new Error("the disk is full"); } });

const notes = defineModule({ id: "notes", description: "Notes.", tools: [readNote, countNotes, waitForever, failing], toolgate: { keys }, url: URL_OF_MODULE });

type Call = { callId: string; tool: string; arguments: Record<string, unknown>; agentId: string; roleId: string; department?: string };
let calls = 0;
const callOf = (tool: string, args: Record<string, unknown>): Call => ({ callId: `call_${++calls}`, tool, arguments: args, agentId: "agt_1", roleId: "rol_1", department: "research" });

async function post(call: Call, token?: string | null, timeoutMs = 5_000) {
  const signed = token === undefined ? await signer.sign({ ...call, audience: URL_OF_MODULE, timeoutMs }) : token;
  const response = await notes.fetch(
    new Request(URL_OF_MODULE, { method: "POST", headers: { "content-type": "application/json", ...(signed ? { "toolgate-call": signed } : {}) }, body: JSON.stringify(call) }),
  );
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

test("defineTool - the parameters' JSON Schema comes from zod, the policy is toolgate's x-toolgate", () => {
  expect(readNote.definition).toEqual({
    type: "function",
    function: {
      name: "read_note",
      description: "Reads a note by its title.",
      parameters: {
        type: "object",
        properties: { title: { type: "string", minLength: 1, description: "The note's title" }, lines: { type: "integer", exclusiveMinimum: 0, maximum: 9007199254740991 } },
        required: ["title"],
      },
    },
    "x-toolgate": { category: "notes" },
  });
  expect(() => defineTool({ name: "bad name", description: "x", parameters: z.object({}), execute: () => "" })).toThrow(/1-64 letters/);
});

test("a call toolgate signed runs, with the call, the agent and its department; a value that is not text is answered as JSON", async () => {
  const call = callOf("read_note", { title: "groceries" });
  expect(await post(call)).toEqual({ status: 200, body: { type: "text", content: `groceries for agt_1 (rol_1, research) in ${call.callId}` } });
  expect(await post(callOf("count_notes", {}))).toEqual({ status: 200, body: { type: "json", content: '{"notes":3}' } });
});

test("without a token, with one for another module, another call or other arguments, or an expired one, the request is 401 and nothing runs", async () => {
  const before = ran.length;
  const call = callOf("read_note", { title: "secret plans" });
  expect(await post(call, null)).toMatchObject({ status: 401, body: { error: "unauthenticated", message: expect.stringContaining("no toolgate-call token") } });
  const elsewhere = await signer.sign({ ...call, audience: "http://other.example.com/call", timeoutMs: 5_000 });
  expect(await post(call, elsewhere)).toMatchObject({ status: 401, body: { message: expect.stringContaining("not valid for this module") } });
  const forGroceries = await signer.sign({ ...call, arguments: { title: "groceries" }, audience: URL_OF_MODULE, timeoutMs: 5_000 });
  expect(await post(call, forGroceries)).toMatchObject({ status: 401, body: { message: expect.stringContaining("signed for another call") } });
  const forAnotherCall = await signer.sign({ ...call, callId: "call_other", audience: URL_OF_MODULE, timeoutMs: 5_000 });
  expect(await post(call, forAnotherCall)).toMatchObject({ status: 401 });
  const expired = await signer.sign({ ...call, audience: URL_OF_MODULE, timeoutMs: 1_000 }, Date.now() - 60_000);
  expect(await post(call, expired)).toMatchObject({ status: 401, body: { message: expect.stringContaining("exp") } });
  const stranger = await new CallSigner("a-stranger-signing-key-0123456789-0123").sign({ ...call, audience: URL_OF_MODULE, timeoutMs: 5_000 });
  expect(await post(call, stranger)).toMatchObject({ status: 401 });
  expect(ran.length).toBe(before);
});

test("a token is taken once: the same signed request sent again is 401 saying the token was already used, and the tool does not run again; a fresh token runs", async () => {
  const call = callOf("read_note", { title: "once" });
  const token = await signer.sign({ ...call, audience: URL_OF_MODULE, timeoutMs: 5_000 });
  expect(await post(call, token)).toMatchObject({ status: 200 });
  const runs = ran.filter((title) => title === "once").length;
  for (let replay = 0; replay < 3; replay++)
    expect(await post(call, token)).toEqual({ status: 401, body: { error: "unauthenticated", message: expect.stringContaining("token was already used") } });
  expect(ran.filter((title) => title === "once").length).toBe(runs);
  expect(await post(callOf("read_note", { title: "once" }))).toMatchObject({ status: 200 });
  expect(ran.filter((title) => title === "once").length).toBe(runs + 1);
});

test("a token lives until its call's deadline and the clock skew allowed, no longer: replayed until then it was already used, after that it has expired", async () => {
  const call = callOf("read_note", { title: "late" });
  const started = Date.now();
  const token = await signer.sign({ ...call, audience: URL_OF_MODULE, timeoutMs: 2_000 }, started);
  expect(await post(call, token)).toMatchObject({ status: 200 });
  const lastMoment = Math.ceil((started + 2_000) / 1000) * 1000 + CALL_TOKEN_CLOCK_SKEW_SECONDS * 1000 - 1;
  vi.useFakeTimers({ toFake: ["Date"], now: lastMoment });
  expect(await post(call, token)).toMatchObject({ status: 401, body: { message: expect.stringContaining("already used") } });
  vi.setSystemTime(lastMoment + 1);
  expect(await post(call, token)).toMatchObject({ status: 401, body: { message: expect.stringContaining('"exp" claim timestamp check failed') } });
});

test("the tool's signal aborts at the call's timeout; a thrown error and input its schema refuses are error results", async () => {
  const started = Date.now();
  expect(await post(callOf("wait_forever", {}), undefined, 300)).toEqual({ status: 200, body: { type: "error", content: "wait_forever did not finish before the call's timeout." } });
  expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  expect(await post(callOf("failing", {}))).toEqual({ status: 200, body: { type: "error", content: "the disk is full" } });
  expect(await post(callOf("read_note", { title: "" }))).toMatchObject({ status: 200, body: { type: "error", content: expect.stringContaining("title") } });
});

test("definitions - the group as toolgate registers it, its version a hash of its content: the same tools give the same version", () => {
  const definitions = notes.definitions();
  expect(definitions).toMatchObject({ id: "notes", description: "Notes.", tools: [readNote.definition, countNotes.definition, waitForever.definition, failing.definition] });
  expect(defineModule({ id: "notes", description: "Notes.", tools: [readNote, countNotes, waitForever, failing], toolgate: { keys } }).definitions().version).toBe(definitions.version);
  expect(defineModule({ id: "notes", description: "Notes, changed.", tools: [readNote, countNotes, waitForever, failing], toolgate: { keys } }).definitions().version).not.toBe(definitions.version);
});

test("node() answers as fetch does on a node:http server: a signed call runs, an unsigned one is 401, a GET 405, a body over 1 MiB 400", async () => {
  const server = createServer();
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  server.on("request", defineModule({ id: "notes", description: "Notes.", tools: [readNote], toolgate: { keys }, url: `${origin}/call` }).node());
  const send = async (call: Call, token?: string, body = JSON.stringify(call)) => {
    const response = await fetch(`${origin}/call`, { method: "POST", headers: { "content-type": "application/json", ...(token ? { "toolgate-call": token } : {}) }, body });
    return { status: response.status, body: await response.json() };
  };
  try {
    const call = callOf("read_note", { title: "over node" });
    const token = await signer.sign({ ...call, audience: `${origin}/call`, timeoutMs: 5_000 });
    expect(await send(call, token)).toEqual({ status: 200, body: { type: "text", content: `over node for agt_1 (rol_1, research) in ${call.callId}` } });
    expect(await send(call)).toMatchObject({ status: 401, body: { error: "unauthenticated" } });
    expect((await fetch(`${origin}/call`)).status).toBe(405);
    expect(await send(call, token, JSON.stringify({ ...call, padding: "x".repeat(1024 * 1024) }))).toMatchObject({ status: 400, body: { error: "invalid_call" } });
  } finally {
    await new Promise((done) => server.close(done));
  }
});

test("a token that is not toolgate's ES256 signature is 401: unsigned (alg none), or another token's signature on this call's claims", async () => {
  const call = callOf("read_note", { title: "forged" });
  const genuine = await signer.sign({ ...call, audience: URL_OF_MODULE, timeoutMs: 5_000 });
  const [header, payload] = genuine.split(".");
  const unsigned = new UnsecuredJWT(decodeJwt(genuine)).encode();
  const other = (await signer.sign({ ...callOf("read_note", { title: "other" }), audience: URL_OF_MODULE, timeoutMs: 5_000 })).split(".")[2];
  const before = ran.length;
  expect(await post(call, unsigned)).toMatchObject({ status: 401, body: { message: expect.stringContaining("not valid for this module") } });
  expect(await post(call, `${header}.${payload}.${other}`)).toMatchObject({ status: 401, body: { message: expect.stringContaining("signature verification failed") } });
  expect(await post(call, `${header}.${payload}`)).toMatchObject({ status: 401 });
  expect(ran.length).toBe(before);
});

test("a token whose header or payload is not base64url JSON is 401 saying so, and nothing runs", async () => {
  const call = callOf("read_note", { title: "garbled" });
  const [, payload, signature] = (await signer.sign({ ...call, audience: URL_OF_MODULE, timeoutMs: 5_000 })).split(".");
  const before = ran.length;
  expect(await post(call, `not*json.${payload}.${signature}`)).toMatchObject({ status: 401, body: { message: expect.stringContaining("its header is not base64url-encoded JSON") } });
  expect(await post(call, `${Buffer.from("[1]").toString("base64url")}.${payload}.${signature}`)).toMatchObject({ status: 401, body: { message: expect.stringContaining("its header is not a JSON object") } });
  expect(ran.length).toBe(before);
});

afterEach(() => void vi.useRealTimers());

test("a key the set stops answering with is refused within a minute, as soon as jose's own cache of the set would refuse it", async () => {
  let published = signer.jwks();
  const changing = defineModule({ id: "notes", description: "Notes.", tools: [readNote], toolgate: { keys: (header, token) => createLocalJWKSet(published)(header, token) }, url: URL_OF_MODULE });
  const call = callOf("read_note", { title: "rotated" });
  const send = async () => {
    const token = await signer.sign({ ...call, audience: URL_OF_MODULE, timeoutMs: 10 * KNOWN_KEY_MS });
    const request = new Request(URL_OF_MODULE, { method: "POST", headers: { "toolgate-call": token }, body: JSON.stringify(call) });
    return (await changing.fetch(request)).status;
  };
  expect(await send()).toBe(200);
  published = { keys: [] };
  vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
  expect(await send()).toBe(200);
  vi.setSystemTime(Date.now() + KNOWN_KEY_MS + 1);
  expect(await send()).toBe(401);
});
