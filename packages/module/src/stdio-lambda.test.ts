import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect, test } from "vitest";
import { CallSigner } from "@toolgate/core/executor";
import { stdioModule } from "./stdio-lambda.js";

const URL_OF_MODULE = "https://abc.lambda-url.eu-west-1.on.aws/";
const NODE_MODULES = resolve(import.meta.dirname, "../../../node_modules");
const signer = new CallSigner("stdio-module-signing-key-0123456789-0123");
const jwks = createServer((_request, response) => response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(signer.jwks())));
let everything: ReturnType<typeof stdioModule>;
const clients: Client[] = [];
/** Every request the module received, as it arrived. */
const received: Request[] = [];

beforeAll(async () => {
  await new Promise<void>((ready) => jwks.listen(0, "127.0.0.1", ready));
  everything = stdioModule({
    id: "everything",
    description: "The MCP reference server.",
    command: "node",
    args: [join(NODE_MODULES, "@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
    toolgate: { url: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}` },
  });
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await new Promise((done) => jwks.close(done));
});

/** An MCP client of the module, each tools/call signed by toolgate for a call of `timeoutMs`. */
async function toolgateClient(timeoutMs: number) {
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    const body = request.method === "POST" ? await request.clone().json() : undefined;
    if (body?.method === "tools/call") {
      const claims = { callId: `call_${body.id}`, tool: body.params.name, arguments: body.params.arguments, agentId: "agt_1", roleId: "rol_1", audience: URL_OF_MODULE, timeoutMs };
      request.headers.set("toolgate-call", await signer.sign(claims));
    }
    received.push(request.clone());
    return everything.fetch(request);
  };
  const client = new Client({ name: "toolgate", version: "1.0.0" });
  clients.push(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(URL_OF_MODULE), { fetch }));
  return client;
}

test("stdioModule - a signed tools/call runs once: the exact request sent again is 401, the token already used", async () => {
  const client = await toolgateClient(10_000);
  expect(await client.callTool({ name: "echo", arguments: { message: "once" } })).toMatchObject({ content: [{ type: "text", text: "Echo: once" }] });
  const toolsCall = received.findLast((request) => request.headers.has("toolgate-call"))!;
  const replayed = await everything.fetch(toolsCall.clone());
  expect(replayed.status).toBe(401);
  expect(await replayed.json()).toEqual({ error: "unauthenticated", message: expect.stringContaining("token was already used") });
}, 60_000);

test("stdioModule - a signed call is cancelled at its deadline, when toolgate stops waiting, not when the program would finish", async () => {
  const client = await toolgateClient(1_000);
  const started = Date.now();
  await expect(client.callTool({ name: "trigger-long-running-operation", arguments: { duration: 10, steps: 10 } })).rejects.toThrow(/timed out/i);
  expect(Date.now() - started).toBeLessThan(5_000);
}, 60_000);
