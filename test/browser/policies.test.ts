import { mkdtemp, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startLocalProcess } from "../support/local-process";
import type { LocalProcess } from "../support/local-process";
import { launchChromium, RESULTS_DIR, tearDown, withPage, signIn as signInAs, loaded } from "./browser";

type Policy = { id: string; version: number; scope: string; mode: "enforce" | "log_only"; effect: string; shipped?: true; rule?: Record<string, unknown>; problems: Array<{ message: string }> };
type Problem = { message: string; line?: number; column?: number };

describe("policies page in Chromium", () => {
  let dataDir: string;
  let stack: LocalProcess;
  let browser: Browser;

  const http = async <T = any>(method: string, path: string, body?: unknown, token = stack.adminToken, headers: Record<string, string> = {}) => {
    const response = await fetch(`${stack.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  };

  const signIn = (page: Page, path?: string) => signInAs(page, stack, path);
  const row = (page: Page, id: string) => page.locator(`li[data-policy="${id}"]`);
  const editor = (page: Page) => page.locator("#policy-form");

  async function openPolicies(page: Page) {
    await signIn(page, "/console/policies");
    await loaded(page);
    await page.locator("#policy-layers li[data-policy]").first().waitFor();
  }

  async function writeRule(page: Page, rule: { id: string; tool: string; match: string; effect: string }) {
    await page.getByRole("button", { name: "New policy" }).click();
    const form = editor(page);
    await form.getByLabel("Policy id").fill(rule.id);
    await form.getByLabel("Tool", { exact: true }).fill(rule.tool);
    await form.getByLabel("Match (glob)").fill(rule.match);
    await form.getByLabel("Effect", { exact: true }).selectOption(rule.effect);
  }

  beforeAll(async () => {
    await mkdir(RESULTS_DIR, { recursive: true });
    dataDir = await mkdtemp(join(tmpdir(), "toolgate-policies-"));
    [stack, browser] = await Promise.all([startLocalProcess(dataDir), launchChromium()]);
  });

  afterAll(() => tearDown(browser, stack, dataDir));

  const policiesTest = (name: string, body: (page: Page) => Promise<void>) => test(name, () => withPage(browser, name, body), 120_000);

  policiesTest("policies list - the shipped policies are listed under System, each as GET /policies has it, command-allowlist log-only", async (page) => {
    await openPolicies(page);
    const { policies } = (await http<{ policies: Policy[] }>("GET", "/policies")).body;
    const shipped = policies.filter((policy) => policy.shipped);
    expect(shipped.map((policy) => policy.id).sort()).toEqual(["command-allowlist", "command-code-execution", "dangerous-commands", "javascript-code", "workspace-paths", "write-size"]);
    const system = page.getByRole("region", { name: "System", exact: true });
    for (const policy of shipped) {
      const item = system.locator(`li[data-policy="${policy.id}"]`);
      const text = (await item.textContent())!;
      expect(text, policy.id).toContain(policy.effect);
      expect(text).toContain("shipped");
      expect(text).toContain(policy.mode === "enforce" ? "enforced" : "log-only");
    }
    expect(shipped.find((policy) => policy.id === "command-allowlist")!.mode).toBe("log_only");
    await system.locator('li[data-policy="command-allowlist"]').getByRole("button", { name: "Switch to enforce" }).waitFor();
    await page.screenshot({ path: join(RESULTS_DIR, "policies-list.png"), fullPage: true });
  });

  policiesTest("policies list - a policy the catalog no longer supports shows its problem under its layer, and that it still fails closed", async (page) => {
    const tool = { type: "function", function: { name: "lookup", description: "Look up.", parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] } } };
    expect((await http("PUT", "/groups/lookups", { description: "Lookups.", tools: [tool] })).status).toBe(201);
    const put = await http("PUT", "/policies/no-secret-lookups", { scope: "department:research", mode: "enforce", rule: { tool: "lookup", argument: "query", match: "*secret*", effect: "deny" } });
    expect(put.status, JSON.stringify(put.body)).toBe(201);
    expect((await http("DELETE", "/groups/lookups")).status).toBe(204);
    const [problem] = (await http<Policy>("GET", "/policies/no-secret-lookups")).body.problems;
    expect(problem).toBeDefined();

    await openPolicies(page);
    const layer = page.getByRole("region", { name: "Department research" });
    const problems = (await layer.locator('li[data-policy="no-secret-lookups"] [data-problems]').textContent())!;
    expect(problems).toContain("Invalid against the catalog");
    expect(problems).toContain(problem!.message);
    expect(problems).toContain("it still fails closed");
    expect(await page.locator("section.policy-layer h2").allTextContents()).toEqual(["System", "Department research"]);
    expect((await http("DELETE", "/policies/no-secret-lookups")).status).toBe(204);
  });

  policiesTest("policy editor - a one-line rule run_command / git push * / ask, checked as it is typed, is saved and listed under System", async (page) => {
    await openPolicies(page);
    await writeRule(page, { id: "ask-before-push", tool: "run_command", match: "git push *", effect: "ask" });
    await editor(page).locator("#policy-check").filter({ hasText: "Valid against the catalog: an ask policy" }).waitFor();
    await page.getByRole("button", { name: "Save policy" }).click();
    await page.locator("#policy-save-status").filter({ hasText: "Created" }).waitFor();

    const saved = await http<Policy>("GET", "/policies/ask-before-push");
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ scope: "system", mode: "enforce", effect: "ask", version: 1, rule: { tool: "run_command", match: "git push *", effect: "ask" } });
    const item = page.getByRole("region", { name: "System", exact: true }).locator('li[data-policy="ask-before-push"]');
    await item.waitFor();
    expect(await item.textContent()).toContain("ask");
    expect(await item.textContent()).toContain("enforced");
    expect(await page.getByRole("heading", { level: 2, name: "Edit ask-before-push" }).isVisible()).toBe(true);
  });

  policiesTest("policy editor - an invalid Cedar policy shows Cedar's message with its line and column, and Save stores nothing", async (page) => {
    const cedar = 'forbid (principal, action == Action::"run_command", resource\nwhen { context.command like "curl *" };';
    const { problems } = (await http<{ problems: Problem[] }>("POST", "/policies/validate", { scope: "system", mode: "enforce", cedar })).body;
    const [problem] = problems;
    expect(problem?.line).toBe(2);

    await openPolicies(page);
    await page.getByRole("button", { name: "New policy" }).click();
    const form = editor(page);
    await form.getByLabel("Policy id").fill("no-curl");
    await form.getByRole("radio", { name: "Cedar", exact: true }).check();
    await form.getByLabel("Cedar policy").fill(cedar);
    await form.getByRole("button", { name: "Check" }).click();
    const check = form.locator("#policy-check");
    await check.filter({ hasText: problem!.message }).waitFor();
    expect(await check.textContent()).toContain(`Line ${problem!.line}, column ${problem!.column}: ${problem!.message}`);

    await form.getByRole("button", { name: "Save policy" }).click();
    await form.getByRole("alert").filter({ hasText: "Not saved" }).waitFor();
    expect((await http("GET", "/policies/no-curl")).status).toBe(404);
    expect(await row(page, "no-curl").count()).toBe(0);
    await page.screenshot({ path: join(RESULTS_DIR, "policies-invalid-cedar.png"), fullPage: true });
  });

  policiesTest("policies list - switching command-allowlist to enforce in one click stores it enforced (GET /policies agrees)", async (page) => {
    const before = (await http<Policy>("GET", "/policies/command-allowlist")).body;
    await openPolicies(page);
    const item = row(page, "command-allowlist");
    await item.getByRole("button", { name: "Switch to enforce" }).click();
    await page.locator("#policy-list-status").filter({ hasText: "command-allowlist is now enforced" }).waitFor();
    await item.getByRole("button", { name: "Switch to log-only" }).waitFor();
    expect(await item.textContent()).toContain("enforced");
    const after = (await http<{ policies: Policy[] }>("GET", "/policies")).body.policies.find((policy) => policy.id === "command-allowlist")!;
    expect(after).toMatchObject({ mode: "enforce", version: before.version + 1, effect: "ask" });
  });

  policiesTest("policy editor - saving over a version changed since it was loaded answers 412; Reload shows the policy as it is now", async (page) => {
    await openPolicies(page);
    await row(page, "write-size").getByRole("button", { name: "Edit" }).click();
    await page.getByRole("heading", { level: 2, name: "Edit write-size" }).waitFor();
    const loadedVersion = (await http<Policy>("GET", "/policies/write-size")).body.version;
    const current = (await http<Policy & { cedar: string; description: string }>("GET", "/policies/write-size")).body;
    const changed = await http<Policy>("PUT", "/policies/write-size", { scope: current.scope, mode: "log_only", description: current.description, cedar: current.cedar }, stack.adminToken, {
      "if-match": `"${loadedVersion}"`,
    });
    expect(changed.status).toBe(200);

    await editor(page).getByLabel("Description (optional)").fill("At most 10 MiB a write.");
    await page.getByRole("button", { name: "Save policy" }).click();
    const problem = editor(page).getByRole("alert").filter({ hasText: "Not saved" });
    await problem.waitFor();
    expect(await problem.textContent()).toContain("changed by someone else");
    await problem.getByRole("button", { name: "Reload" }).click();
    await page.locator("#policy-save-status").filter({ hasText: `Reloaded` }).waitFor();
    expect(await page.locator("#policy-form-version").textContent()).toContain(`Version ${changed.body.version}`);
    expect(await editor(page).getByRole("radio", { name: /^Log only/ }).isChecked()).toBe(true);
    expect((await http<Policy & { description: string }>("GET", "/policies/write-size")).body.description).toBe(current.description);
  });

  policiesTest("policy simulation - a draft deny rule on run_command matching git * shows the agent's git status call as a flip, counted for the draft, and saves nothing", async (page) => {
    const role = await http<{ id: string }>("POST", "/roles", { name: "committer", rolePrompt: "Commit work.", toolGroups: ["command"] });
    expect(role.status).toBe(201);
    const agent = await http<{ agent: { id: string }; token: string }>("POST", "/agents", { roleId: role.body.id, name: "git-user" });
    expect(agent.status).toBe(201);
    const call = await http<{ callId: string }>("POST", `/agents/${agent.body.agent.id}/calls`, { tool: "run_command", arguments: { command: "git status" } }, agent.body.token);
    expect(call.status, JSON.stringify(call.body)).toBeLessThan(300);
    const draft = { id: "no-git", scope: "system", mode: "enforce", rule: { tool: "run_command", match: "git *", effect: "deny" } };
    const expected = (await http<{ flips: Array<{ callId: string; from: { effect: string } }> }>("POST", "/policies/simulate", { put: [draft] })).body.flips.find(
      (flip) => flip.callId === call.body.callId,
    );
    expect(expected).toBeDefined();

    await openPolicies(page);
    await writeRule(page, { id: "no-git", tool: "run_command", match: "git *", effect: "deny" });
    await page.getByRole("button", { name: "Simulate" }).click();
    const flip = page.locator(`#policy-simulation-result li[data-call="${call.body.callId}"]`);
    await flip.waitFor();
    const text = (await flip.textContent())!;
    expect(text).toContain("run_command");
    expect(text).toContain(`${expected!.from.effect === "none" ? "no policy" : expected!.from.effect} → deny`);
    expect(text).toContain("with the draft: no-git");
    expect(await flip.getByRole("link").getAttribute("href")).toContain(`/console/agents/${agent.body.agent.id}`);
    expect(await page.locator('#policy-simulation-result .by-policy li[data-policy="no-git"]').textContent()).toMatch(/^no-git: \d+ calls?$/);
    expect(await page.locator("#policy-simulation-result [data-summary]").textContent()).toMatch(/^Replayed \d+ recent calls?/);
    await page.screenshot({ path: join(RESULTS_DIR, "policies-simulation.png"), fullPage: true });
    expect((await http("GET", "/policies/no-git")).status).toBe(404);
  });
});
