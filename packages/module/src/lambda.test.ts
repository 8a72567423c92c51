import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createLocalJWKSet } from "jose";
import type { LambdaEvent } from "hono/aws-lambda";
import { afterAll, expect, test } from "vitest";
import * as z from "zod";
import { CallSigner } from "@toolgate/core/executor";
import { functionUrlEvent } from "../../../test/support/function-url.js";
import { defineModule, defineTool } from "./index.js";
import { lambdaHandler, registrationInput } from "./lambda.js";
import type { Registration, RegistrationEvent } from "./lambda.js";

const signer = new CallSigner("lambda-entry-signing-key-0123456789-0123");
const echo = defineTool({ name: "echo", description: "Echoes.", parameters: z.object({ text: z.string() }), execute: ({ text }) => text });
const handler = lambdaHandler(defineModule({ id: "echoes", description: "Echoes.", tools: [echo], toolgate: { keys: createLocalJWKSet(signer.jwks()) } }));

/** A toolgate that records what it is sent and answers PUT and DELETE /groups/:id as the admin token deserves. */
async function recordingToolgate(adminToken: string) {
  const received: string[] = [];
  const server = createServer((request, response) => {
    received.push(`${request.method} ${request.url}`);
    const admitted = request.headers.authorization === `Bearer ${adminToken}`;
    response.writeHead(admitted ? (request.method === "PUT" ? 201 : 204) : 401, { "content-type": "application/json" });
    response.end(admitted ? (request.method === "PUT" ? "{}" : undefined) : JSON.stringify({ error: "unauthenticated", message: "Not an admin token." }));
  });
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () => new Promise<void>((done) => server.close(() => done()));
  servers.push(close);
  return { url, received, close };
}
const servers: Array<() => Promise<void>> = [];
afterAll(() => Promise.all(servers.map((close) => close())));

const event = (action: RegistrationEvent["tf"]["action"], registration: Registration, previous: Registration | null = null): RegistrationEvent => ({
  ...registrationInput(registration),
  tf: { action, prev_input: previous && registrationInput(previous) },
});

test("lambdaHandler - a deploy's create and update announce the module at its function URL, and a move to another toolgate withdraws it from the first", async () => {
  const [first, second] = [await recordingToolgate("first-admin"), await recordingToolgate("second-admin")];
  const atFirst = { url: "https://abc.lambda-url.eu-west-1.on.aws/", toolgateUrl: first.url, adminToken: "first-admin", code: "assets/a.zip" };
  expect(await handler(event("create", atFirst))).toEqual({ module: "echoes", action: "announced", url: atFirst.url, version: expect.any(String) });
  expect(await handler(event("update", { ...atFirst, code: "assets/b.zip" }, atFirst))).toMatchObject({ action: "announced" });
  const atSecond = { ...atFirst, toolgateUrl: second.url, adminToken: "second-admin" };
  expect(await handler(event("update", atSecond, atFirst))).toMatchObject({ action: "announced" });
  expect(first.received).toEqual(["PUT /groups/echoes", "PUT /groups/echoes", "DELETE /groups/echoes"]);
  expect(second.received).toEqual(["PUT /groups/echoes"]);
});

test("lambdaHandler - a removal withdraws the module; a toolgate that cannot be reached does not hold it up, one that refuses the admin token fails it", async () => {
  const toolgate = await recordingToolgate("admin");
  const registration = { url: "https://abc.lambda-url.eu-west-1.on.aws/", toolgateUrl: toolgate.url, adminToken: "admin" };
  expect(await handler(event("delete", registration, registration))).toMatchObject({ module: "echoes", action: "withdrawn" });
  expect(toolgate.received).toEqual(["DELETE /groups/echoes"]);
  await expect(handler(event("delete", { ...registration, adminToken: "wrong" }))).rejects.toThrow(/HTTP 401/);
  await expect(handler(event("create", { ...registration, adminToken: "wrong" }))).rejects.toThrow(/did not register the module "echoes" \(HTTP 401\): Not an admin token/);
  const gone = await recordingToolgate("admin");
  await gone.close();
  expect(await handler(event("delete", { ...registration, toolgateUrl: gone.url }))).toMatchObject({ action: "withdrawn" });
});

test("lambdaHandler - a function URL's request is answered by the module at the URL it arrived at, which toolgate's token must name", async () => {
  const call = { callId: "call_1", tool: "echo", arguments: { text: "hi" }, agentId: "agt_1", roleId: "rol_1" };
  const post = async (url: string, audience: string) => {
    const token = await signer.sign({ ...call, audience, timeoutMs: 5_000 });
    const request = new Request(url, { method: "POST", headers: { "content-type": "application/json", "toolgate-call": token }, body: JSON.stringify(call) });
    // @types/aws-lambda's shape of the event, which hono's types declare a little differently (authorizer, body: null).
    const result = (await handler((await functionUrlEvent(request)) as unknown as LambdaEvent)) as { statusCode: number; body: string };
    return { status: result.statusCode, body: JSON.parse(result.body) };
  };
  expect(await post("http://127.0.0.1:9100/", "http://127.0.0.1:9100/")).toEqual({ status: 200, body: { type: "text", content: "hi" } });
  expect(await post("https://abc.lambda-url.eu-west-1.on.aws/", "https://abc.lambda-url.eu-west-1.on.aws/")).toEqual({ status: 200, body: { type: "text", content: "hi" } });
  expect(await post("http://127.0.0.1:9100/", "https://127.0.0.1:9100/")).toMatchObject({ status: 401, body: { error: "unauthenticated" } });
});
