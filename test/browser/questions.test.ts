import { mkdtemp, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startConformanceUpstream } from "../support/conformance-upstream";
import type { ConformanceUpstream } from "../support/conformance-upstream";
import { startLocalProcess } from "../support/local-process";
import type { LocalProcess } from "../support/local-process";
import { launchChromium, RESULTS_DIR, stackRequest, tearDown, withPage, signIn as signInAs, loaded } from "./browser";

type Issued = { agent: { id: string; name: string }; token: string };

describe("questions page in Chromium", () => {
  let dataDir: string;
  let stack: LocalProcess;
  let browser: Browser;
  let asker: Issued;
  let upstream: ConformanceUpstream;

  const http = stackRequest(() => stack);

  const ask = async (args: Record<string, unknown>) => {
    const asked = await http<{ callId: string; status: string }>("POST", `/agents/${asker.agent.id}/calls`, { tool: "ask_user", arguments: args }, asker.token);
    expect(asked.body.status).toBe("awaiting_answer");
    return asked.body.callId;
  };
  const resultOf = async (callId: string) => (await http<{ status: string; result?: { content: string } }>("GET", `/agents/${asker.agent.id}/calls/${callId}`, undefined, asker.token)).body;
  const card = (page: Page, callId: string) => page.locator(`li.question[data-call="${callId}"]`);

  beforeAll(async () => {
    await mkdir(RESULTS_DIR, { recursive: true });
    dataDir = await mkdtemp(join(tmpdir(), "toolgate-questions-"));
    [stack, browser, upstream] = await Promise.all([startLocalProcess(dataDir), launchChromium(), startConformanceUpstream()]);
    const role = await http<{ id: string }>("POST", "/roles", { name: "asker", rolePrompt: "Ask when unsure.", toolGroups: ["console"] });
    asker = (await http<Issued>("POST", "/agents", { roleId: role.body.id, name: "asker-1" })).body;
  });

  afterAll(async () => {
    await upstream?.close();
    await tearDown(browser, stack, dataDir);
  });

  const questionsTest = (name: string, body: (page: Page) => Promise<void>) => test(name, () => withPage(browser, name, body), 120_000);

  questionsTest("questions - an agent's question with options is answered from the console, and the agent's call completes with that answer", async (page) => {
    const callId = await ask({ question: "Which environment should I deploy to?", options: ["staging", "production"] });
    await signInAs(page, stack, "/console");
    await loaded(page);
    await expect.poll(() => page.locator("#question-count").textContent()).toBe("1");
    await page.getByRole("link", { name: /Questions/ }).click();
    await loaded(page);
    const question = card(page, callId);
    await expect.poll(() => question.locator("h2").textContent()).toBe("Which environment should I deploy to?");
    expect(await question.textContent()).toContain("asker-1");
    await question.getByRole("button", { name: "Answer" }).click();
    await expect.poll(() => question.locator("[data-result]").textContent()).toBe("Choose an answer, or decline the question.");
    await question.getByLabel("staging").check();
    await question.getByRole("button", { name: "Answer" }).click();
    await expect.poll(() => page.locator("#answered-list").textContent()).toContain("Answered: the agent has your answer.");
    expect(await resultOf(callId)).toMatchObject({ status: "completed", result: { content: '{"action":"accept","answer":"staging"}' } });
    await expect.poll(() => page.locator("#load-status").textContent()).toBe("No agent is waiting for an answer.");
  });

  questionsTest("questions - several options, words of one's own, and declining reach the agent as such", async (page) => {
    const several = await ask({ question: "Which regions?", options: ["eu", "us", "ap"], multiple: true });
    const open = await ask({ question: "What should the release be called?" });
    const declined = await ask({ question: "May I delete the old backups?" });
    await signInAs(page, stack, "/console/questions");
    await loaded(page);
    await card(page, several).getByLabel("eu").check();
    await card(page, several).getByLabel("ap").check();
    await card(page, several).getByRole("button", { name: "Answer" }).click();
    await card(page, open).getByLabel("Answer").fill("Aurora");
    await card(page, open).getByRole("button", { name: "Answer" }).click();
    await card(page, declined).getByRole("button", { name: "Decline" }).click();
    await expect.poll(() => page.locator("#answered-list > li").count()).toBe(3);
    expect((await resultOf(several)).result?.content).toBe('{"action":"accept","answer":["eu","ap"]}');
    expect((await resultOf(open)).result?.content).toBe('{"action":"accept","answer":"Aurora"}');
    expect((await resultOf(declined)).result?.content).toBe('{"action":"decline"}');
  });

  questionsTest("questions - a module's question during an unattended agent's call is its form, filled in on the console; the module gets the answer", async (page) => {
    const module = await http("PUT", "/groups/release-module", { description: "A module that asks who owns a release", executor: { type: "mcp", url: upstream.url, timeoutMs: 120_000 } });
    expect(module.status, JSON.stringify(module.body)).toBe(201);
    const role = await http<{ id: string }>("POST", "/roles", { name: "releaser", rolePrompt: "Cut releases.", toolGroups: ["release-module"] });
    const releaser = (await http<Issued>("POST", "/agents", { roleId: role.body.id, name: "releaser-1" })).body;
    const call = http<{ result: { content: string } }>("POST", `/agents/${releaser.agent.id}/calls`, { tool: "test_elicitation", arguments: { message: "Who owns this release?" } }, releaser.token);
    const queued = async () => (await http<{ calls: Array<{ agentId: string }> }>("GET", "/calls?status=awaiting_answer")).body.calls.filter((queued) => queued.agentId === releaser.agent.id);
    await expect.poll(async () => (await queued()).length, { timeout: 10_000 }).toBe(1);

    await signInAs(page, stack, "/console/questions");
    await loaded(page);
    const question = page.locator("li.question", { hasText: "Who owns this release?" });
    await expect.poll(() => question.count()).toBe(1);
    expect(await question.textContent()).toContain("the module, during call");
    await question.getByLabel("email").fill("ada@example.com");
    await question.getByRole("button", { name: "Answer" }).click();
    await expect.poll(() => question.locator("[data-result]").textContent()).toBe('Fill in "username", or decline the question.');
    await question.getByLabel("username").fill("ada");
    await page.screenshot({ path: join(RESULTS_DIR, "questions-module-form.png"), fullPage: true });
    await question.getByRole("button", { name: "Answer" }).click();
    await expect.poll(() => page.locator("#answered-list").textContent()).toContain("Answered: the agent has your answer.");

    const ran = (await call).body.result.content;
    expect(JSON.parse(ran.replace("User response: action=accept, content=", ""))).toEqual({ username: "ada", email: "ada@example.com" });
  });

  questionsTest("answering tokens - made on the questions page and shown once, listed, answering as the bot, and revoked from the page", async (page) => {
    await signInAs(page, stack, "/console/questions");
    await loaded(page);
    expect(await page.locator("#answer-token-none").isVisible()).toBe(true);
    await page.getByLabel("Name", { exact: true }).fill("chat-bot");
    await page.getByRole("button", { name: "Make token" }).click();
    const tokenBox = page.getByLabel("Answering token", { exact: true });
    await tokenBox.waitFor();
    const token = await tokenBox.inputValue();
    expect(await page.locator("#token-warning").textContent()).toContain("shown only now");
    const row = page.locator("#answer-token-rows tr");
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.textContent()).toContain("chat-bot");
    expect(await row.textContent()).not.toContain(token);
    await page.screenshot({ path: join(RESULTS_DIR, "questions-answer-token.png"), fullPage: true });

    const callId = await ask({ question: "Roll back the release?", options: ["yes", "no"] });
    const answered = await http<{ answeredByName?: string }>("POST", `/calls/${callId}/answer`, { answer: "no" }, token);
    expect(answered.status).toBe(200);
    expect(answered.body.answeredByName).toBe("chat-bot");

    await page.getByRole("button", { name: "Revoke chat-bot" }).click();
    await expect.poll(() => page.locator("#answer-token-status").textContent()).toBe("Revoked: chat-bot can no longer read or answer questions.");
    await expect.poll(() => row.count()).toBe(0);
    expect((await http("GET", "/calls?status=awaiting_answer", undefined, token)).status).toBe(401);
  });

  questionsTest("role page - who answers a role's questions is set on its page and saved with it", async (page) => {
    const role = (await http<{ id: string; questions: string }>("GET", "/roles/by-name/asker")).body;
    expect(role.questions).toBe("user");
    await signInAs(page, stack, `/console/roles/${role.id}`);
    await loaded(page);
    expect(await page.getByLabel("The agent's own user, when its client can ask them").isChecked()).toBe(true);
    await page.getByLabel("Always an operator").check();
    await page.locator("#save").click();
    await expect.poll(() => page.locator("#save-status").textContent()).toContain("Saved.");
    expect((await http<{ questions: string }>("GET", `/roles/${role.id}`)).body.questions).toBe("operator");
    expect((await http("PATCH", `/roles/${role.id}`, { questions: "user" })).status).toBe(200);
  });
});
