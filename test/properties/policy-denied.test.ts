import fc from "fast-check";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Toolgate } from "@toolgate/core/toolgate";
import { api, testToolgate, tool } from "../support/toolgate";
import type { Api, ApiResponse } from "../support/toolgate";
import { startExecutor } from "../support/executor";
import type { Executor } from "../support/executor";
import { serveToolgate } from "../support/http-server";
import type { ServedToolgate } from "../support/http-server";
import { createAgent, createRole, putGroup, unique } from "../integration/helpers";

const NUM_RUNS = 30;

let toolgate: Toolgate;
let request: Api;
let executor: Executor;
let served: ServedToolgate;
let roleId: string;
const names = { direct: unique("shell"), confirmed: unique("shell_confirmed") };
const CMD = { type: "object", properties: { cmd: { type: "string" } }, required: ["cmd"] };

beforeAll(async () => {
  [toolgate, executor] = await Promise.all([testToolgate(), startExecutor()]);
  request = api(toolgate);
  served = await serveToolgate(toolgate);
  const group = unique("shells");
  await putGroup(request, group, {
    description: "Command lines run by an HTTP executor.",
    executor: { type: "http", url: `${executor.url}/run` },
    tools: [
      { ...tool(names.direct, "Runs a command line.", CMD), "x-toolgate": { commandArguments: ["cmd"], repeatLimit: 0 } },
      { ...tool(names.confirmed, "Runs a command line once an admin approves.", CMD), "x-toolgate": { commandArguments: ["cmd"], repeatLimit: 0, requireConfirmation: true } },
    ],
  });
  roleId = (await createRole(request, { name: unique("operator"), toolGroups: [group] })).id;
});

afterAll(async () => {
  await served?.close();
  await executor?.close();
});

// ---------------------------------------------------------------- the oracle: a command line built from known simple commands

/** One simple command as written, with the simple command of its $( ) argument or of its whole self when it has one. */
type Segment = { text: string; commands: string[] };

const word = fc.constantFrom("a", "b", "ab", "ba", "rm", "-f");
const words = fc.array(word, { minLength: 1, maxLength: 3 }).map((parts) => parts.join(" "));

const segment: fc.Arbitrary<Segment> = fc.oneof(
  { weight: 4, arbitrary: words.map((text) => ({ text, commands: [text] })) },
  { weight: 1, arbitrary: fc.tuple(words, words).map(([outer, inner]) => ({ text: `${outer} $(${inner})`, commands: [`${outer} $(${inner})`, inner] })) },
  { weight: 1, arbitrary: words.map((inner) => ({ text: `$(${inner})`, commands: [`$(${inner})`, inner] })) },
);

const joiner = fc.constantFrom(";", "; ", " ; ", "&&", " && ", "|", " | ", "\n");

type Line = { line: string; commands: string[] };

const lineArb: fc.Arbitrary<Line> = fc
  .tuple(segment, fc.array(fc.tuple(joiner, segment), { maxLength: 3 }))
  .map(([head, rest]) => ({
    line: head.text + rest.map(([join, next]) => join + next.text).join(""),
    commands: [...head.commands, ...rest.flatMap(([, next]) => next.commands)],
  }));

const randomGlob = fc
  .array(fc.constantFrom("a", "b", " ", "*", "-f", "rm"), { minLength: 1, maxLength: 5 })
  .map((parts) => parts.join(""));

/** A glob cut from one of the line's own commands (a prefix, a suffix or both kept, the rest a `*`), so that about half the rules match. */
const derivedGlob = (commands: string[]) =>
  fc.tuple(fc.constantFrom(...commands), fc.nat(), fc.constantFrom("prefix", "suffix", "middle", "exact")).map(([command, at, kind]) => {
    const cut = at % (command.length + 1);
    if (kind === "prefix") return `${command.slice(0, cut)}*`;
    if (kind === "suffix") return `*${command.slice(cut)}`;
    if (kind === "middle") return `*${command.slice(Math.min(cut, command.length - 1), cut + 1)}*`;
    return command;
  });

const caseArb = lineArb.chain((line) => fc.record({ line: fc.constant(line), glob: fc.oneof(randomGlob, derivedGlob(line.commands)) }));

/** Cedar's `like`: `*` is any run of characters, everything else itself. */
const matches = (glob: string, text: string) =>
  new RegExp(`^${glob.split("*").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`, "s").test(text);

const shouldDeny = ({ line, glob }: { line: Line; glob: string }) => line.commands.some((command) => matches(glob, command));

test("oracle - matches reads a glob as Cedar's like: `*` any run of characters, the rest literal", () => {
  expect(matches("a*", "a b")).toBe(true);
  expect(matches("*b", "a $(b)")).toBe(false);
  expect(matches("*(b)", "a $(b)")).toBe(true);
  expect(matches("rm", "rm -f")).toBe(false);
  expect(matches("*-f", "rm -f")).toBe(true);
});

// ---------------------------------------------------------------- the paths a call can take

async function mcpCall(token: string, name: string, args: Record<string, unknown>) {
  const response = await fetch(`${served.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}`, "mcp-protocol-version": "2025-11-25" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  const text = await response.text();
  const data = text.split("\n").find((row) => row.startsWith("data: "));
  const message = JSON.parse(data ? data.slice("data: ".length) : text);
  if (!message.result) throw new Error(`tools/call failed: ${text}`);
  return message.result as { isError?: boolean; _meta?: { code?: string }; content: Array<{ text: string }> };
}

const outcome = (response: ApiResponse) => `${response.status} ${response.body?.status ?? response.body?.error}`;

test("a call whose decision is deny never reaches the executor, by REST, call_tool, /mcp or an approval; a call not denied reaches it or waits", async () => {
  await fc.assert(
    fc.asyncProperty(caseArb, async ({ line, glob }) => {
      const denied = shouldDeny({ line, glob });
      const { agent, token } = await createAgent(request, roleId);
      const cmd = line.line;
      const as = { token };

      const waiting = await request("POST", `/agents/${agent.id}/calls`, { ...as, body: { tool: names.confirmed, arguments: { cmd } } });
      expect(outcome(waiting), JSON.stringify(waiting.body)).toBe("202 awaiting_confirmation");

      const policies = { direct: unique("deny-direct"), confirmed: unique("deny-confirmed") };
      for (const [key, toolName] of [["direct", names.direct], ["confirmed", names.confirmed]] as const) {
        const put = await request("PUT", `/policies/${policies[key]}`, { body: { scope: `agent:${agent.id}`, rule: { tool: toolName, match: glob, effect: "deny" } } });
        expect(put.status, JSON.stringify(put.body)).toBe(201);
      }

      const rest = await request("POST", `/agents/${agent.id}/calls`, { ...as, body: { tool: names.direct, arguments: { cmd } } });
      const viaCallTool = await request("POST", `/agents/${agent.id}/calls`, { ...as, body: { tool: "call_tool", arguments: { name: names.direct, arguments: { cmd } } } });
      const viaMcp = await mcpCall(token, names.direct, { cmd });
      const again = await request("POST", `/agents/${agent.id}/calls`, { ...as, body: { tool: names.confirmed, arguments: { cmd } } });
      const approved = await request("POST", `/calls/${waiting.body.callId}/approve`);
      const reached = executor.requests.filter((received) => received.body?.agentId === agent.id);

      if (denied) {
        for (const [path, response, policy] of [["REST", rest, policies.direct], ["call_tool", viaCallTool, policies.direct], ["REST (confirmed tool)", again, policies.confirmed]] as const) {
          expect(outcome(response), `${path}: ${JSON.stringify(response.body)}`).toBe("403 policy_denied");
          expect(response.body.policies, path).toEqual([policy]);
        }
        expect(viaMcp, "/mcp").toMatchObject({ isError: true, _meta: { code: "policy_denied" } });
        expect(outcome(approved), `approve: ${JSON.stringify(approved.body)}`).toBe("409 no_longer_allowed");
        expect(reached.map((received) => received.body.tool)).toEqual([]);
      } else {
        expect(outcome(rest), `REST: ${JSON.stringify(rest.body)}`).toBe("200 completed");
        expect(outcome(viaCallTool), `call_tool: ${JSON.stringify(viaCallTool.body)}`).toBe("200 completed");
        expect(viaMcp.isError ?? false, `/mcp: ${JSON.stringify(viaMcp)}`).toBe(false);
        expect(outcome(again), `REST (confirmed tool): ${JSON.stringify(again.body)}`).toBe("202 awaiting_confirmation");
        expect(outcome(approved), `approve: ${JSON.stringify(approved.body)}`).toBe("200 completed");
        expect(reached.map((received) => [received.body.tool, received.body.arguments.cmd])).toEqual([
          [names.direct, cmd],
          [names.direct, cmd],
          [names.direct, cmd],
          [names.confirmed, cmd],
        ]);
      }
      for (const id of Object.values(policies)) expect((await request("DELETE", `/policies/${id}`)).status).toBe(204);
    }),
    { numRuns: NUM_RUNS },
  );
}, 180_000);
