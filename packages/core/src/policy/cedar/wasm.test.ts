import { expect, test } from "vitest";
import { questioner } from "./question";
import { readPolicy } from "./read";
import { cedar, cedarAnswers, cedarGeneration, CedarFault } from "./wasm";
import type { StoredPolicy } from "../schema";

const DENY_RM = 'forbid (principal, action == Action::"run_command", resource) when { context.command == "rm" };';

async function storedDenyRm(): Promise<StoredPolicy> {
  const read = await readPolicy(DENY_RM);
  if (!read.ok) throw new Error(JSON.stringify(read.problems));
  const now = new Date(0).toISOString();
  return { id: "deny-rm", version: 1, scope: "system", mode: "enforce", cedar: DENY_RM, createdAt: now, updatedAt: now, ...read.read };
}

const subject = { principal: { agentId: "agent_1", roleId: "role_1", roleName: "dev", department: null, level: null }, tool: "run_command", group: "command" };

test("a fault inside the engine (150 nested parentheses trap it) costs that one answer: CedarFault, a fresh instance, and the policies decide again", async () => {
  const policy = await storedDenyRm();
  expect(questioner(await cedar(), subject, [policy]).ask({ command: "rm" })).toEqual({ effect: "deny", policies: ["deny-rm"] });
  const before = cedarGeneration();

  const wasm = await cedar();
  expect(() => wasm.policySetTextToParts(`forbid (principal, action, resource) when { ${"(".repeat(200)}true${")".repeat(200)} };`)).toThrow(CedarFault);

  expect(cedarAnswers()).toBe(true);
  expect(cedarGeneration()).toBe(before + 1);
  const fresh = questioner(await cedar(), subject, [policy]);
  expect(fresh.ask({ command: "rm" })).toEqual({ effect: "deny", policies: ["deny-rm"] });
  expect(fresh.ask({ command: "ls" })).toEqual({ effect: "none", policies: [] });
});
