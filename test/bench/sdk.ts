// The module SDK in `npm run bench`: what it adds to a guarded call, and what a one-tool module weighs.
import { createServer } from "node:http";
import type { RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { relative } from "node:path";
import { build } from "esbuild";
import * as z from "zod";
import { defineModule, defineTool } from "@toolgate/module";
import type { Module } from "@toolgate/module";
import { serveFetch } from "../support/http-server";
import { loadedAtInit } from "../support/lambda-build";
import type { HttpClient, Note, Out } from "./support";
import { inShuffledRounds, percentile } from "./support";

const WARMUP = 100;
const MEASURED = 1_000;


/**
 * A one-tool module on the SDK, answering as the bench's bare executor answers (`ran <tool>`): served by its own
 * node:http listener (`node()`), as the bare executor is, or by its web-standard `fetch` behind Hono's node server.
 */
async function startSdkModule(toolgateUrl: string, id: string, serving: "node" | "fetch") {
  let module: Module | undefined;
  let listener: RequestListener | undefined;
  const server = serving === "node" ? await listenWith((request, response) => listener!(request, response)) : await serveFetch((request) => module!.fetch(request));
  const url = `${server.url}/call`;
  const echo = defineTool({
    name: `${id}_echo`,
    description: "Echoes its input.",
    parameters: z.object({ i: z.number().int(), text: z.string().optional() }),
    execute: () => `ran ${id}_echo`,
  });
  module = defineModule({ id, description: "The bench's module on the SDK.", tools: [echo], toolgate: { url: toolgateUrl }, url });
  listener = module.node();
  return { module, tool: echo.name, close: server.close };
}

/** A node:http server with this listener on 127.0.0.1 and a free port. */
async function listenWith(listener: RequestListener) {
  const server = createServer(listener);
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((done) => (server.close(() => done()), server.closeAllConnections())),
  };
}

/**
 * The minified bundle of a one-tool module (the SDK, zod and jose with it), as a Lambda would carry it: split as
 * infra/defaults.ts splits functions, counting what loads with the module, not the MCP server that mcp() loads on use.
 */
async function oneToolBundleBytes() {
  const built = await build({
    stdin: {
      contents: `import * as z from "zod";
import { defineModule, defineTool } from "@toolgate/module";
const echo = defineTool({ name: "echo", description: "Echoes.", parameters: z.object({ text: z.string() }), execute: ({ text }) => text });
export const handler = defineModule({ id: "echo", description: "Echo.", tools: [echo] }).fetch;`,
      resolveDir: process.cwd(),
      loader: "ts",
      sourcefile: "module.ts",
    },
    bundle: true,
    minify: true,
    splitting: true,
    outdir: "bundle",
    metafile: true,
    platform: "node",
    format: "esm",
    target: "node20",
    write: false,
  });
  const entry = Object.entries(built.metafile.outputs).find(([, output]) => output.entryPoint)![0];
  const bytes = new Map(built.outputFiles.map((file) => [relative(process.cwd(), file.path), file.contents.byteLength]));
  return loadedAtInit(built.metafile, entry).reduce((sum, output) => sum + bytes.get(output)!, 0);
}

/**
 * sdk_call_overhead_p50_ms: a guarded call (REST) to a module on the SDK, on its node:http listener, minus a guarded
 * call to the bench's bare node:http executor answering the same, interleaved; the SDK's side is its token check
 * (signature, audience, the call's id, agent, tool and arguments), its input parse and its answer.
 * sdk_fetch_call_overhead_p50_ms: the same module through its web-standard fetch behind Hono's node server.
 * sdk_one_tool_bundle_kib: its bundle.
 */
export async function benchSdk(api: HttpClient, admin: { token: string }, toolgateUrl: string, executorUrl: string, out: Out, note: Note) {
  const modules = { node: await startSdkModule(toolgateUrl, "bench_sdk", "node"), fetch: await startSdkModule(toolgateUrl, "bench_sdk_fetch", "fetch") };
  try {
    for (const { module } of Object.values(modules)) await module.announce({ adminToken: admin.token, toolgateUrl });
    await api.json("PUT", "/groups/bench_bare", 201, {
      ...admin,
      body: {
        description: "The bench's bare executor, beside the SDK module.",
        executor: { type: "http", url: executorUrl },
        tools: [{ type: "function", function: { name: "bench_bare_echo", description: "Echoes its input.", parameters: { type: "object", properties: { i: { type: "integer" }, text: { type: "string" } }, required: ["i"] } } }],
      },
    });
    const role = await api.json("POST", "/roles", 201, { ...admin, body: { name: "bench-sdk", rolePrompt: "Bench role.", toolGroups: ["bench_sdk", "bench_sdk_fetch", "bench_bare"] } });
    const { agent, token } = await api.json("POST", "/agents", 201, { ...admin, body: { roleId: role.id, name: "bench-sdk-agent" } });
    let i = 0;
    const call = (tool: string) => async () => {
      const n = i++;
      const { ms, response } = await api.timed("POST", `/agents/${agent.id}/calls`, 200, { token, body: { tool, arguments: { i: n, text: `call ${n}` } } });
      const body = JSON.parse(response.text);
      if (body.result?.content !== `ran ${tool}`) throw new Error(`${tool} answered ${response.text}`);
      return ms;
    };
    const legs = { node: call(modules.node.tool), fetch: call(modules.fetch.tool), bare: call("bench_bare_echo") };
    const samples = { node: [] as number[], fetch: [] as number[], bare: [] as number[] };
    for (let n = 0; n < WARMUP; n++) for (const leg of Object.values(legs)) await leg();
    await inShuffledRounds(["node", "fetch", "bare"] as const, MEASURED, async (name) => void samples[name].push(await legs[name]()));
    const p50 = (name: keyof typeof samples) => percentile(samples[name], 50);
    out("sdk_call_overhead_p50_ms", (p50("node") - p50("bare")).toFixed(2));
    out("sdk_fetch_call_overhead_p50_ms", (p50("fetch") - p50("bare")).toFixed(2));
    out("sdk_one_tool_bundle_kib", ((await oneToolBundleBytes()) / 1024).toFixed(1));
    note(
      `sdk: ${MEASURED} guarded calls each, interleaved, to a one-tool module on the SDK (its node:http listener; its fetch behind Hono's node server) and to the bare node:http executor; ` +
        `p50 ${p50("node").toFixed(2)} / ${p50("fetch").toFixed(2)} / ${p50("bare").toFixed(2)} ms; the bundle: esbuild, minified, split, node, esm, what loads with the module`,
    );
    for (const { module } of Object.values(modules)) await module.withdraw({ adminToken: admin.token, toolgateUrl });
  } finally {
    await Promise.all(Object.values(modules).map((served) => served.close()));
  }
}
