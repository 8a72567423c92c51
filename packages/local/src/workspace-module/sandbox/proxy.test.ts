import { createServer, request } from "node:http";
import type { Server } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { isInternalAddress } from "./address";
import { startProxy } from "./proxy";
import type { Proxy } from "./proxy";

/** An address of this machine that is not internal, where a test server can stand for a host on the internet. */
const outwardAddress = Object.values(networkInterfaces())
  .flat()
  .find((one) => one?.family === "IPv4" && !one.internal && !isInternalAddress(one.address))?.address;

let dir: string;
let socketPath: string;
let proxy: Proxy;
let outward: Server | undefined;

/** Listens on port 80 of the outward address, if this machine has one and may bind it. */
async function listenOutward(): Promise<Server | undefined> {
  if (!outwardAddress) return undefined;
  const server = createServer((incoming, answer) => answer.end(`outward ${incoming.method} ${incoming.url} host=${incoming.headers.host}`));
  return new Promise((listening) => server.once("error", () => listening(undefined)).listen(80, outwardAddress, () => listening(server)));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "sandbox-proxy-"));
  socketPath = join(dir, "proxy.sock");
  outward = await listenOutward();
  proxy = await startProxy(socketPath, ["localhost", "registry.npmjs.org", ...(outwardAddress ? [outwardAddress] : [])]);
});

afterAll(async () => {
  await proxy?.close();
  outward?.close();
  await rm(dir, { recursive: true, force: true });
});

function connectThrough(authority: string): Promise<{ status: number; body: string }> {
  return new Promise((answered, failed) => {
    const asking = request({ socketPath, method: "CONNECT", path: authority, headers: { host: authority } });
    asking.once("connect", (response, socket, head) => {
      let body = String(head);
      socket.on("data", (chunk) => (body += chunk)).on("end", () => answered({ status: response.statusCode ?? 0, body }));
      if (response.statusCode === 200) socket.write(`GET /tunnelled HTTP/1.1\r\nhost: ${authority}\r\nconnection: close\r\n\r\n`);
    });
    asking.once("error", failed).end();
  });
}

function getThrough(url: string): Promise<{ status: number; body: string }> {
  return new Promise((answered, failed) => {
    request({ socketPath, method: "GET", path: url, headers: { host: new URL(url).host } }, (response) => {
      let body = "";
      response.on("data", (chunk) => (body += chunk)).on("end", () => answered({ status: response.statusCode ?? 0, body }));
    })
      .once("error", failed)
      .end();
  });
}

test("proxy - a host the operator did not name is refused, by CONNECT and by an absolute-form request", async () => {
  expect(await connectThrough("example.com:443")).toMatchObject({ status: 403, body: expect.stringContaining("example.com is not a host this sandbox may reach") });
  expect(await getThrough("http://example.com/")).toMatchObject({ status: 403, body: expect.stringContaining("--allow-host") });
});

test("proxy - a named host that resolves to this machine is refused, whatever port", async () => {
  for (const authority of ["localhost:443", "localhost:80"])
    expect(await connectThrough(authority), authority).toMatchObject({ status: 403, body: expect.stringContaining("is this machine or a private network") });
  expect(await getThrough("http://localhost/health")).toMatchObject({ status: 403, body: expect.stringContaining("127.0.0.1") });
});

test("proxy - only ports 80 and 443 of a named host", async () => {
  expect(await connectThrough("registry.npmjs.org:22")).toMatchObject({ status: 403, body: expect.stringContaining("only ports 80 and 443") });
  expect(await connectThrough("localhost:8787")).toMatchObject({ status: 403 });
});

test.skipIf(!outwardAddress)("proxy - CONNECT and an absolute-form request reach a named host on an address that is not internal", async ({ skip }) => {
  if (!outward) return skip(`port 80 of ${outwardAddress} cannot be bound here`);
  expect(await connectThrough(`${outwardAddress}:80`)).toMatchObject({ status: 200, body: expect.stringContaining(`outward GET /tunnelled host=${outwardAddress}`) });
  expect(await getThrough(`http://${outwardAddress}/plain?x=1`)).toEqual({ status: 200, body: `outward GET /plain?x=1 host=${outwardAddress}` });
});
