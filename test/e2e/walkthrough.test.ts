import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, test } from "vitest";
import { startLocalProcess } from "../support/local-process";
import type { LocalProcess } from "../support/local-process";

const README = resolve(import.meta.dirname, "../../README.md");
const LAYERS = resolve(import.meta.dirname, "../../docs/layers.md");
const README_PORT_LINE = "TG=http://127.0.0.1:8787";

/** The README's "Try it" section: its shell blocks and the line it says the walkthrough ends with. */
async function tryIt() {
  const text = await readFile(README, "utf8");
  const section = text.slice(text.indexOf("## Try it"), text.indexOf("\n## ", text.indexOf("## Try it") + 1));
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
  const last = section.match(/The last line prints\s+`([^`]+)`/)?.[1];
  return { start: blocks[0]!.trim(), walkthrough: blocks[1]!, last };
}

let home: string;
let stack: LocalProcess | undefined;

afterAll(async () => {
  await stack?.stop("SIGTERM");
  if (home) await rm(home, { recursive: true, force: true });
});

/**
 * Runs the walkthrough exactly as written (bash, curl, jq) from the directory npm start ran in, only its port differs,
 * as a shell a person pastes it into runs it: without errexit or pipefail. Nothing it runs may be refused.
 */
async function walk(script: string, url: string) {
  expect(script).toContain(README_PORT_LINE);
  const { stdout, stderr } = await promisify(execFile)("bash", ["-c", script.replace(README_PORT_LINE, `TG=${url}`)], { cwd: home });
  expect(stderr).toBe("");
  return stdout.trim().split("\n");
}

/** What the walkthrough leaves behind: nothing of its own once its undo ran. */
async function leftBehind(running: LocalProcess) {
  const roles = (await running.request("GET", "/roles", running.adminToken)).body.roles as Array<{ name: string }>;
  const agents = (await running.request("GET", "/agents?status=active&limit=100", running.adminToken)).body.agents as Array<{ name: string }>;
  const policy = (await running.request("GET", "/tools/current_time", running.adminToken)).body.policy;
  return { roles: roles.filter((role) => role.name === "writer").length, agents: agents.filter((agent) => agent.name === "writer-1").length, confirms: policy.requireConfirmation === true };
}

test("README - the Try it walkthrough shows the waiting call, ends in a completed guarded call and undoes itself, again on the kept data and after a restart", async () => {
  const { start, walkthrough, last } = await tryIt();
  expect(start).toBe("TOOLGATE_EXAMPLE_MODULE=1 npm start");
  expect(last).toBeDefined();
  home = await mkdtemp(join(tmpdir(), "toolgate-walkthrough-"));
  const dataDir = join(home, ".toolgate");
  stack = await startLocalProcess(dataDir, { TOOLGATE_EXAMPLE_MODULE: "1" });
  expect(stack.output()).toContain(`console:     ${stack.url}/console`);

  const first = await walk(walkthrough, stack.url);
  expect(first.at(-1)).toBe(last);
  expect(first.some((line) => line.startsWith('{"status":"awaiting_confirmation","deadline":"'))).toBe(true);
  expect(first).toContain('{"status":"completed"}');
  expect(first.join("\n")).not.toContain("null");
  expect(await leftBehind(stack)).toEqual({ roles: 0, agents: 0, confirms: false });
  const again = await walk(walkthrough, stack.url);
  expect(again.at(-1)).toBe(last);

  await stack.stop("SIGTERM");
  stack = await startLocalProcess(dataDir, { TOOLGATE_EXAMPLE_MODULE: "1" });
  const restarted = await walk(walkthrough, stack.url);
  expect(restarted.at(-1)).toBe(last);
  expect(restarted.join("\n")).not.toContain("null");
  expect(await leftBehind(stack)).toEqual({ roles: 0, agents: 0, confirms: false });
}, 240_000);

test("README - a step toolgate refuses prints toolgate's error, not a jq error", async () => {
  if (!stack) throw new Error("the walkthrough test starts the stack");
  const { walkthrough } = await tryIt();
  const helper = walkthrough.slice(0, walkthrough.indexOf("\n}\n") + 3);
  const refused = await promisify(execFile)("bash", ["-c", `${helper.replace(README_PORT_LINE, `TG=${stack.url}`)}\ntg GET /agents/agt_nobody/tools "" not-a-token | jq -c '[.tools[].function.name]'`], { cwd: home }).catch((error: { stdout: string; stderr: string }) => error);
  expect(refused.stdout.trim()).toBe("");
  expect(refused.stderr.trim()).toMatch(/^tg: GET \/agents\/agt_nobody\/tools answered 401: unauthenticated: .+/);
  expect(refused.stderr).not.toContain("jq:");
});

/** The first shell block of one section of the README (or of another page that continues its walkthrough). */
async function sectionBlock(heading: string, page = README) {
  const text = await readFile(page, "utf8");
  const section = text.slice(text.indexOf(heading), text.indexOf("\n## ", text.indexOf(heading) + 1));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!)[0]!;
}

test("README - Rules about arguments: the read outside the workspace root is refused naming the root, git push waits, the simulation shows it flip, and the undo leaves nothing", async () => {
  if (!stack) throw new Error("the walkthrough test starts the stack");
  const running = stack;
  const { walkthrough } = await tryIt();
  const helper = walkthrough.slice(0, walkthrough.indexOf("\n}\n") + 3).replace(README_PORT_LINE, `TG=${running.url}`);
  const run = () => promisify(execFile)("bash", ["-c", `${helper}\n${blockOf}`], { cwd: home });
  const blockOf = await sectionBlock("## Rules about arguments");
  for (let round = 0; round < 2; round++) {
    const { stdout, stderr } = await run();
    expect(stdout).toContain('permit (principal, action == Action::"run_command", resource)\nwhen { (context.command like "git push *" || context.command like "git push") };');
    expect(stdout).toContain('{"status":"awaiting_confirmation"}');
    expect(stdout).toContain('{"tool":"run_command","from":"ask","to":"deny"}');
    expect(stderr.trim().split("\n")).toEqual([expect.stringMatching(/^tg: POST \/agents\/\S+\/calls answered 403: policy_denied: .*The path "\/etc\/passwd" is outside the workspace root "\/work\/app"/)]);
    const roles = (await running.request("GET", "/roles", running.adminToken)).body.roles as Array<{ name: string }>;
    const agents = (await running.request("GET", "/agents?status=active&limit=100", running.adminToken)).body.agents as Array<{ name: string }>;
    const policies = (await running.request("GET", "/policies", running.adminToken)).body.policies as Array<{ id: string }>;
    expect({ roles: roles.filter((role) => role.name === "coder").length, agents: agents.filter((agent) => agent.name === "coder-1").length }).toEqual({ roles: 0, agents: 0 });
    expect(policies.map((policy) => policy.id).sort()).toEqual(["command-allowlist", "command-code-execution", "dangerous-commands", "javascript-code", "workspace-paths", "write-size"]);
  }
});

test("docs/layers.md - Tools in layers: the research department's http_request is in front for its agent, the personal tool is the researcher's alone, the record names the layer, the layers and the department say where it comes from, and the undo leaves nothing", async () => {
  if (!stack) throw new Error("the walkthrough test starts the stack");
  const running = stack;
  const { walkthrough } = await tryIt();
  const helper = walkthrough.slice(0, walkthrough.indexOf("\n}\n") + 3).replace(README_PORT_LINE, `TG=${running.url}`);
  const block = await sectionBlock("# Tools in layers", LAYERS);
  for (let round = 0; round < 2; round++) {
    const { stdout, stderr } = await promisify(execFile)("bash", ["-c", `${helper}\n${block}`], { cwd: home });
    expect(stderr).toBe("");
    const lines = stdout.split("\n").filter((line) => line.trim() !== "");
    expect(lines).toContain('{"id":"research_web","scope":"department:research"}');
    expect(lines).toContain("Fetch a URL through the research proxy.");
    expect(lines.filter((line) => line.startsWith("Send an HTTP request"))).toHaveLength(1);
    expect(lines).toContain('["http_request","save_note"]');
    expect(lines).toContain('["http_request"]');
    expect(lines).toContain('{"tool":"http_request","group":"research_web","scope":"department:research","status":"authorized"}');
    expect(lines).toContain('{"name":"http_request","group":"research_web","scope":"department:research","shadows":[{"group":"network","scope":"system"}]}');
    expect(lines).toContain('{"name":"research","agents":1,"groups":["research_web"]}');
    const groups = (await running.request("GET", "/groups", running.adminToken)).body.groups as Array<{ id: string }>;
    expect(groups.filter((group) => ["research_web", "notes_researcher_1"].includes(group.id))).toEqual([]);
  }
});

test("README - People in the loop: the agent's question waits in the queue, the chat bot's answer is its call's result and names the bot, and the undo leaves nothing", async () => {
  if (!stack) throw new Error("the walkthrough test starts the stack");
  const running = stack;
  const { walkthrough } = await tryIt();
  const helper = walkthrough.slice(0, walkthrough.indexOf("\n}\n") + 3).replace(README_PORT_LINE, `TG=${running.url}`);
  const block = await sectionBlock("## People in the loop");
  for (let round = 0; round < 2; round++) {
    const { stdout, stderr } = await promisify(execFile)("bash", ["-c", `${helper}\n${block}`], { cwd: home });
    expect(stderr).toBe("");
    const lines = stdout.split("\n").filter((line) => line.trim() !== "");
    expect(lines).toEqual([
      '{"status":"awaiting_answer"}',
      '{"question":"Deploy to production now?","options":["yes","not yet"],"multiple":false}',
      '{"status":"completed","answer":{"action":"accept","answer":"not yet"},"answeredByName":"chat-bot"}',
    ]);
    const roles = (await running.request("GET", "/roles", running.adminToken)).body.roles as Array<{ name: string }>;
    expect(roles.filter((role) => role.name === "asking")).toEqual([]);
    expect((await running.request("GET", "/answer-tokens", running.adminToken)).body.answerTokens).toEqual([]);
  }
});

test("GET / - a browser is sent to the console; anything else gets the links", async () => {
  if (!stack) throw new Error("the walkthrough test starts the stack");
  const html = await fetch(`${stack.url}/`, { headers: { accept: "text/html" }, redirect: "manual" });
  expect(html.status).toBe(302);
  expect(html.headers.get("location")).toBe("/console");
  const json = await (await fetch(`${stack.url}/`)).json();
  expect(json).toMatchObject({ service: "toolgate", console: "/console" });
});
