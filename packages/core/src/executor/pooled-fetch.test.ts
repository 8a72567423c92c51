import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createGzip, gzipSync } from "node:zlib";
import { afterAll, beforeAll, expect, test } from "vitest";
import { AnswerTooLarge, pooledFetch } from "./pooled-fetch";

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

const handlers = new Map<string, Handler>();
const closed: string[] = [];
let server: Server;
let origin: string;

handlers.set("/echo", (request, body, response) => {
  response.writeHead(200, { "content-type": "application/json", "set-cookie": ["a=1", "b=2"] });
  response.end(JSON.stringify({ method: request.method, headers: request.headers, body }));
});
handlers.set("/gzip", (_, __, response) => {
  response.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
  response.end(gzipSync("unzipped"));
});
handlers.set("/redirect", (_, __, response) => {
  response.writeHead(307, { location: "/echo" });
  response.end();
});
handlers.set("/accepted", (_, __, response) => {
  response.writeHead(202);
  response.end();
});
handlers.set("/no-content", (_, __, response) => {
  response.writeHead(204);
  response.end();
});
handlers.set("/events", (_, __, response) => {
  response.writeHead(200, { "content-type": "text/event-stream" });
  response.write("data: first\n\n");
  response.once("close", () => closed.push("/events"));
});
handlers.set("/cut", (_, __, response) => {
  response.writeHead(200, { "content-type": "text/plain", "content-length": "100" });
  response.write("partial", () => response.destroy());
});

handlers.set("/endless", (_, __, response) => {
  response.writeHead(200, { "content-type": "application/json" });
  const chunk = Buffer.alloc(64 * 1024, "x");
  const more = () => {
    while (!response.destroyed && response.write(chunk));
    if (!response.destroyed) response.once("drain", more);
  };
  response.once("close", () => closed.push("/endless"));
  more();
});
handlers.set("/gzip-bomb", (_, __, response) => {
  response.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
  response.end(gzipSync(Buffer.alloc(4 * 1024 * 1024, "x")));
});
handlers.set("/gzip-endless", (_, __, response) => {
  response.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
  const gzip = createGzip();
  gzip.pipe(response);
  const chunk = Buffer.alloc(64 * 1024, "x");
  const more = () => {
    while (!response.destroyed && gzip.write(chunk));
    if (!response.destroyed) gzip.once("drain", more);
  };
  response.once("close", () => {
    closed.push("/gzip-endless");
    gzip.destroy();
  });
  more();
});

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => handlers.get(request.url!)!(request, Buffer.concat(chunks).toString("utf8"), response));
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

test("pooledFetch - posts the string body with the headers given, and answers with the status, every header and the body", async () => {
  const answer = await pooledFetch(new URL(`${origin}/echo`), { method: "POST", headers: new Headers({ "content-type": "application/json", "X-Trace": "t1" }), body: '{"é":1}' });
  expect(answer.status).toBe(200);
  expect(answer.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
  const echoed = await answer.json();
  expect(echoed).toMatchObject({ method: "POST", body: '{"é":1}', headers: { "content-type": "application/json", "x-trace": "t1", "content-length": "8" } });
});

test("pooledFetch - a compressed answer is read decoded, as fetch reads it", async () => {
  expect(await (await pooledFetch(`${origin}/gzip`)).text()).toBe("unzipped");
});

test("pooledFetch - a redirect is answered as it came, not followed; a 202 and a 204 answer an empty body", async () => {
  const redirected = await pooledFetch(`${origin}/redirect`, { method: "POST", body: "{}", redirect: "manual" });
  expect([redirected.status, redirected.headers.get("location")]).toEqual([307, "/echo"]);
  const accepted = await pooledFetch(`${origin}/accepted`, { method: "POST", body: "{}" });
  expect([accepted.status, await accepted.text()]).toEqual([202, ""]);
  const noContent = await pooledFetch(`${origin}/no-content`, { method: "DELETE" });
  expect([noContent.status, noContent.body]).toEqual([204, null]);
});

test("pooledFetch - a streamed answer is readable as it arrives, and aborting ends it and its request", async () => {
  const abort = new AbortController();
  const answer = await pooledFetch(`${origin}/events`, { signal: abort.signal });
  const reader = answer.body!.getReader();
  expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: first\n\n");
  abort.abort();
  await expect(reader.read()).rejects.toThrow();
  await expect.poll(() => closed).toContain("/events");
});

test("pooledFetch - an answer cut short fails its body; an unreachable server and an aborted signal fail the request", async () => {
  await expect((await pooledFetch(`${origin}/cut`)).text()).rejects.toThrow();
  await expect(pooledFetch("http://127.0.0.1:9/none")).rejects.toMatchObject({ message: "fetch failed", cause: { code: "ECONNREFUSED" } });
  await expect(pooledFetch(`${origin}/echo`, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: "AbortError" });
});

test("pooledFetch - a body that is not a string goes to the global fetch", async () => {
  const answer = await pooledFetch(`${origin}/echo`, { method: "POST", body: new URLSearchParams({ a: "1" }) });
  expect(await answer.json()).toMatchObject({ body: "a=1", headers: { "content-type": "application/x-www-form-urlencoded;charset=UTF-8" } });
});

test("pooledFetch - a body past maxBodyBytes, decoded, ends with AnswerTooLarge and its connection is closed; one within it reads whole", async () => {
  const endless = await pooledFetch(`${origin}/endless`, {}, { maxBodyBytes: 1024 * 1024 });
  await expect(endless.text()).rejects.toBeInstanceOf(AnswerTooLarge);
  await expect.poll(() => closed).toContain("/endless");
  const bomb = await pooledFetch(`${origin}/gzip-bomb`, {}, { maxBodyBytes: 1024 * 1024 });
  await expect(bomb.arrayBuffer()).rejects.toThrow("its answer was larger than 1 MiB");
  const zipped = await pooledFetch(`${origin}/gzip-endless`, {}, { maxBodyBytes: 1024 * 1024 });
  await expect(zipped.text()).rejects.toBeInstanceOf(AnswerTooLarge);
  await expect.poll(() => closed).toContain("/gzip-endless");
  expect((await (await pooledFetch(`${origin}/gzip-bomb`, {}, { maxBodyBytes: 4 * 1024 * 1024 })).arrayBuffer()).byteLength).toBe(4 * 1024 * 1024);
});
