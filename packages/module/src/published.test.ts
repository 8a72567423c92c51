// The package as it is published (`npm run build -w @toolgate/module`): plain Node imports it by its exports, without
// a TypeScript loader, and a TypeScript consumer on Node's own module resolution gets its types.
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, test } from "vitest";

const PACKAGE = fileURLToPath(new URL("..", import.meta.url));
const ROOT_MODULES = fileURLToPath(new URL("../../../node_modules", import.meta.url));
let consumer: string;

const CONSUMER = `import * as z from "zod";
import { defineModule, defineTool } from "@toolgate/module";
import { lambdaHandler } from "@toolgate/module/lambda";
import { MODULE_EVENT_SOURCE } from "@toolgate/module/events";

const shout = defineTool({ name: "shout", description: "Shouts.", parameters: z.object({ text: z.string() }), execute: ({ text }) => text.toUpperCase() });
const words = defineModule({ id: "words", description: "Words.", tools: [shout], toolgate: { url: "http://127.0.0.1:9" }, url: "http://words.example/call" });
const body = JSON.stringify({ callId: "call_1", tool: "shout", arguments: { text: "x" }, agentId: "agt_1" });
const refused = await words.fetch(new Request("http://words.example/call", { method: "POST", body }));
console.log(JSON.stringify({ status: refused.status, parameters: shout.definition.function.parameters, version: words.definitions().version.length, lambda: typeof lambdaHandler(words), source: MODULE_EVENT_SOURCE }));
`;

beforeAll(async () => {
  execFileSync(process.execPath, [join(PACKAGE, "scripts/build.mjs")], { stdio: "pipe" });
  consumer = await mkdtemp(join(tmpdir(), "toolgate-module-consumer-"));
  await mkdir(join(consumer, "node_modules/@toolgate"), { recursive: true });
  await symlink(join(PACKAGE, "dist"), join(consumer, "node_modules/@toolgate/module"));
  for (const dependency of ["zod", "@types"]) await symlink(join(ROOT_MODULES, dependency), join(consumer, "node_modules", dependency));
  await writeFile(join(consumer, "package.json"), JSON.stringify({ type: "module" }));
  await writeFile(join(consumer, "consumer.mjs"), CONSUMER);
  await writeFile(join(consumer, "consumer.ts"), CONSUMER);
}, 60_000);

afterAll(() => rm(consumer, { recursive: true, force: true }));

test("plain Node runs a module of the published package: no token is 401, the tool's schema is zod's", () => {
  const output = execFileSync(process.execPath, ["consumer.mjs"], { cwd: consumer, encoding: "utf8" });
  expect(JSON.parse(output)).toEqual({
    status: 401,
    parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    version: 22,
    lambda: "function",
    source: "toolgate.modules",
  });
});

test("a TypeScript consumer on Node's own module resolution typechecks against the published declarations", () => {
  const tsc = join(ROOT_MODULES, "typescript/bin/tsc");
  const options = ["--noEmit", "--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--types", "node", "--skipLibCheck", "false"];
  expect(() => execFileSync(process.execPath, [tsc, ...options, "consumer.ts"], { cwd: consumer, encoding: "utf8", stdio: "pipe" })).not.toThrow();
});
