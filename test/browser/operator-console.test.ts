import { mkdtemp, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { publishModuleEvent } from "../support/events";
import { startLocalProcess } from "../support/local-process";
import type { LocalProcess } from "../support/local-process";
import { launchChromium, RESULTS_DIR, tearDown, withPage, signIn as signInAs, loaded } from "./browser";

const tool = (name: string, description: string, properties: Record<string, unknown> = {}, policy?: Record<string, unknown>) => ({
  type: "function",
  function: { name, description, parameters: { type: "object", properties } },
  ...(policy ? { "x-toolgate": policy } : {}),
});

type Agent = { id: string; name: string; roleId: string; status: string };
type Role = { id: string; name: string; rolePrompt: string; version: number; createdBy: string };

describe("operator console in Chromium", () => {
  let dataDir: string;
  let stack: LocalProcess;
  let browser: Browser;
  let writerRole: Role;

  const http = async <T = any>(method: string, path: string, body?: unknown, token = stack.adminToken) => {
    const response = await fetch(`${stack.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  };
  const createAgent = async (roleId: string, name: string) => {
    const created = await http<{ agent: Agent; token: string }>("POST", "/agents", { roleId, name });
    expect(created.status).toBe(201);
    return created.body;
  };
  const callAs = (agent: { agent: Agent; token: string }, toolName: string, args: Record<string, unknown>) =>
    http("POST", `/agents/${agent.agent.id}/calls`, { tool: toolName, arguments: args }, agent.token);

  const signIn = (page: Page, path?: string) => signInAs(page, stack, path);

  async function waitForModule(module: string, status: string) {
    for (const until = Date.now() + 15_000; (await http("GET", `/modules/${module}`)).body?.status !== status; ) {
      if (Date.now() > until) throw new Error(`the module ${module} did not become ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  beforeAll(async () => {
    await mkdir(RESULTS_DIR, { recursive: true });
    dataDir = await mkdtemp(join(tmpdir(), "toolgate-operator-"));
    [stack, browser] = await Promise.all([startLocalProcess(dataDir), launchChromium()]);
    expect(
      (
        await http("PUT", "/groups/deploy", {
          description: "Deploy services from the agent's runtime.",
          executor: { type: "client" },
          tools: [tool("deploy_service", "Deploy a service.", { service: { type: "string" }, apiToken: { type: "string" } }, { requireConfirmation: true })],
        })
      ).status,
    ).toBe(201);
    expect((await http("PUT", "/groups/unbound", { description: "Tools nothing runs yet.", tools: [tool("orphan_tool", "Nobody runs me.")] })).status).toBe(201);
    expect(
      (await http("PUT", "/groups/weather", { description: "Weather over HTTP.", executor: { type: "http", url: "https://weather.example.com/run" }, tools: [tool("forecast", "Forecast.")] })).status,
    ).toBe(201);
    writerRole = (await http<Role>("POST", "/roles", { name: "writer", rolePrompt: "Write things down.", toolGroups: ["artifact", "deploy"] })).body;
  });

  afterAll(() => tearDown(browser, stack, dataDir));

  const consoleTest = (name: string, body: (page: Page) => Promise<void>, viewport?: { width: number; height: number }) =>
    test(name, () => withPage(browser, name, body, viewport), 120_000);

  consoleTest("tools - each tool shows its group, executor and policy from one request; a policy edit and disable/enable are what the API then holds", async (page) => {
    expect((await http("PATCH", "/tools/orphan_tool/policy", { timeoutMs: 1234 })).status).toBe(200);
    const asked: string[] = [];
    page.on("request", (request) => asked.push(new URL(request.url()).pathname));
    await signIn(page, "/console/tools");
    await loaded(page);
    expect(asked.filter((path) => path === "/tools")).toHaveLength(1);
    expect(asked.filter((path) => path.startsWith("/tools/"))).toEqual([]);
    const row = page.locator("#tool-rows > tr[data-tool=deploy_service]");
    expect(await row.textContent()).toContain("deploy");
    expect(await row.textContent()).toContain("client");
    expect(await row.textContent()).toContain("needs approval");
    expect(await row.textContent()).not.toContain("changed by an admin");
    const orphan = page.locator("#tool-rows > tr[data-tool=orphan_tool]");
    expect(await orphan.textContent()).toContain("no executor");
    expect(await orphan.locator(".policy-cell").textContent()).toContain("timeout 1234 ms");
    expect(await orphan.locator(".policy-cell").textContent()).toContain("changed by an admin");
    const { tools } = (await http<{ tools: Array<{ name: string }> }>("GET", "/tools")).body;
    expect(await page.locator("#tool-rows > tr").count()).toBe(tools.length);

    await page.getByLabel("Name or description").fill("forecast");
    expect(await page.locator("#tool-rows > tr:not([hidden])").count()).toBe(1);
    await page.getByRole("link", { name: "forecast" }).click();
    await page.getByRole("heading", { level: 1, name: "forecast" }).waitFor();
    await loaded(page);
    expect(await page.locator("#tool-facts").textContent()).toContain("https://weather.example.com/run");

    await page.getByLabel("Requires confirmation").check();
    await page.getByLabel("Calls a minute, per agent").fill("5");
    await page.getByLabel("Allowed roles").fill("writer, researcher");
    await page.getByLabel("Minimum level").fill("2");
    await page.getByRole("button", { name: "Save policy" }).click();
    await page.locator("#policy-status").filter({ hasText: "Saved." }).waitFor();
    const saved = (await http("GET", "/tools/forecast")).body;
    expect(saved.policy).toMatchObject({ requireConfirmation: true, rateLimit: { perMinute: 5 }, allowedRoles: ["writer", "researcher"], minLevel: 2, disabled: false });
    const facts = (await page.locator("#tool-facts").textContent())!;
    expect(facts).toContain("5 a minute");
    expect(facts).toContain("writer, researcher");

    await page.getByLabel("Minimum level").fill("");
    await page.getByLabel("Calls a minute, per agent").fill("");
    await page.getByRole("button", { name: "Save policy" }).click();
    await page.locator("#policy-status").filter({ hasText: "Saved." }).waitFor();
    const cleared = (await http("GET", "/tools/forecast")).body.policy;
    expect(cleared.minLevel).toBeUndefined();
    expect(cleared.rateLimit?.perMinute).toBeUndefined();

    await page.getByRole("button", { name: "Disable" }).click();
    await page.locator("#policy-status").filter({ hasText: "Disabled" }).waitFor();
    expect((await http("GET", "/tools/forecast")).body.policy.disabled).toBe(true);
    await page.screenshot({ path: join(RESULTS_DIR, "operator-tool.png"), fullPage: true });
    await page.getByRole("button", { name: "Enable" }).click();
    await page.locator("#policy-status").filter({ hasText: "Enabled" }).waitFor();
    expect((await http("GET", "/tools/forecast")).body.policy.disabled).toBe(false);
  });

  consoleTest("groups - each group shows its executor by type and URL, and a group with none is marked", async (page) => {
    await signIn(page, "/console/groups");
    await loaded(page);
    const card = (id: string) => page.locator("#group-list > li").filter({ has: page.getByRole("heading", { level: 2, name: id, exact: true }) });
    expect(await card("weather").textContent()).toContain("https://weather.example.com/run");
    expect(await card("unbound").textContent()).toContain("no executor");
    expect(await card("deploy").textContent()).toContain("client");
    expect(await card("artifact").textContent()).toContain("native");
    const { groups } = (await http<{ groups: Array<{ id: string; executor: unknown }> }>("GET", "/groups")).body;
    expect(groups.find((group) => group.id === "unbound")!.executor).toBeNull();
    expect(groups.find((group) => group.id === "weather")!.executor).toEqual({ type: "http", url: "https://weather.example.com/run" });
  });

  consoleTest("modules - every module's status, version and group, and a rejected one's reason", async (page) => {
    expect((await publishModuleEvent(stack, "module.loaded", { module: "crawler", version: 3, description: "Crawl pages.", tools: [tool("fetch_page", "Fetch.")] })).FailedEntryCount).toBe(0);
    expect((await publishModuleEvent(stack, "module.loaded", { module: "intruder", version: 1, toolGroupId: "artifact", description: "Takes a reserved id.", tools: [tool("steal", "Steal.")] })).FailedEntryCount).toBe(0);
    expect((await publishModuleEvent(stack, "module.loaded", { module: "retired", version: 1, description: "Soon gone.", tools: [tool("old_tool", "Old.")] })).FailedEntryCount).toBe(0);
    await waitForModule("retired", "loaded");
    expect((await publishModuleEvent(stack, "module.unloaded", { module: "retired", version: 2 })).FailedEntryCount).toBe(0);
    await waitForModule("crawler", "loaded");
    await waitForModule("intruder", "rejected");
    await waitForModule("retired", "unloaded");

    await signIn(page, "/console/modules");
    await loaded(page);
    const { modules } = (await http<{ modules: Array<{ module: string; status: string; version: number; groupId: string; reason?: { message: string } }> }>("GET", "/modules")).body;
    expect(await page.locator("#module-rows > tr").count()).toBe(modules.length);
    for (const module of modules) {
      const text = (await page.locator("#module-rows > tr").filter({ has: page.getByRole("rowheader", { name: module.module, exact: true }) }).textContent())!;
      expect(text, module.module).toContain(module.status);
      expect(text).toContain(String(module.version));
      expect(text).toContain(module.groupId);
      if (module.reason) expect(text).toContain(module.reason.message);
    }
    expect(modules.map((module) => [module.module, module.status]).sort()).toEqual([["crawler", "loaded"], ["intruder", "rejected"], ["retired", "unloaded"]]);
  });

  consoleTest("roles - create a role, edit its name and prompt, and delete it; the API agrees at each step", async (page) => {
    await signIn(page, "/console");
    await loaded(page);
    await page.getByLabel("Name", { exact: true }).fill("reviewer");
    await page.getByLabel("Prompt", { exact: true }).fill("Review pull requests.");
    await page.getByRole("checkbox", { name: "artifact", exact: true }).check();
    await page.getByRole("button", { name: "Create role" }).click();
    await page.getByRole("heading", { level: 1, name: "reviewer" }).waitFor();
    const created = (await http<{ roles: Role[] }>("GET", "/roles")).body.roles.find((role) => role.name === "reviewer")!;
    expect(created).toMatchObject({ rolePrompt: "Review pull requests.", createdBy: "admin", toolGroups: ["artifact"] });
    expect(page.url()).toContain(`/console/roles/${created.id}`);

    await page.getByRole("button", { name: "Edit name and prompt" }).click();
    await page.getByLabel("Name", { exact: true }).fill("senior reviewer");
    await page.getByLabel("Prompt", { exact: true }).fill("Review pull requests.\nBlock what is unsafe.");
    await page.getByRole("button", { name: "Save name and prompt" }).click();
    await page.getByRole("heading", { level: 1, name: "senior reviewer" }).waitFor();
    expect(await http<Role>("GET", `/roles/${created.id}`).then((r) => r.body)).toMatchObject({
      name: "senior reviewer",
      rolePrompt: "Review pull requests.\nBlock what is unsafe.",
      version: created.version + 1,
    });
    expect(await page.locator("#role-prompt").textContent()).toBe("Review pull requests.\nBlock what is unsafe.");

    await page.getByRole("button", { name: "Delete role" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe("Cancel");
    await dialog.getByRole("button", { name: "Delete role" }).click();
    await page.locator("#load-status").filter({ hasText: '"senior reviewer" is deleted' }).waitFor();
    expect((await http("GET", `/roles/${created.id}`)).status).toBe(404);
  });

  const tokensLabel = (tokens: number) => `${tokens.toLocaleString("en")} tokens`;

  consoleTest("roles - a new role gets the groups chosen in its create form, each shown with its tokens; every group is a choice of its own with a warning, and choosing nothing is refused", async (page) => {
    await signIn(page, "/console");
    await loaded(page);
    const { groups } = (await http<{ groups: Array<{ id: string; tokens: number }> }>("GET", "/groups")).body;
    const form = page.getByRole("form", { name: "Create a role" });
    for (const group of groups) expect(await page.locator(`#new-group-${group.id}-tokens`).textContent(), group.id).toBe(tokensLabel(group.tokens));

    await form.getByLabel("Name", { exact: true }).fill("auditor");
    await form.getByRole("button", { name: "Create role" }).click();
    await form.getByRole("alert").filter({ hasText: "Choose the tool groups" }).waitFor();
    expect((await http<{ roles: Role[] }>("GET", "/roles")).body.roles.map((role) => role.name)).not.toContain("auditor");

    await form.getByRole("checkbox", { name: "artifact", exact: true }).check();
    await form.getByRole("checkbox", { name: "deploy", exact: true }).check();
    const chosen = groups.filter((group) => ["artifact", "deploy"].includes(group.id)).reduce((sum, group) => sum + group.tokens, 0);
    expect(await page.locator("#new-role-tokens").textContent()).toContain(`about ${tokensLabel(chosen)}`);
    await form.getByRole("button", { name: "Create role" }).click();
    await page.getByRole("heading", { level: 1, name: "auditor" }).waitFor();
    await page.locator("#load-status").filter({ hasText: "Role created with the tool groups you chose" }).waitFor();
    const auditor = (await http<{ roles: Array<Role & { toolGroups: string[] | null }> }>("GET", "/roles")).body.roles.find((role) => role.name === "auditor")!;
    expect([...auditor.toolGroups!].sort()).toEqual(["artifact", "deploy"]);
    expect(await page.locator("#groups-form input[name=toolGroups]:checked").evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value).sort())).toEqual(["artifact", "deploy"]);

    await page.goto(`${stack.url}/console`);
    await loaded(page);
    await form.getByLabel("Name", { exact: true }).fill("organiser of everything");
    const warning = page.locator("#every-group-warning");
    expect(await warning.isVisible()).toBe(false);
    await form.getByRole("checkbox", { name: "Every tool group, including ones registered later" }).check();
    await warning.waitFor();
    const warned = (await warning.textContent())!;
    for (const expected of ["org_management", "create roles and spawn agents", "registered from now on"]) expect(warned).toContain(expected);
    expect(await form.getByRole("checkbox", { name: "artifact", exact: true }).isDisabled()).toBe(true);
    await page.screenshot({ path: join(RESULTS_DIR, "operator-create-role-every-group.png"), fullPage: true });
    await form.getByRole("button", { name: "Create role" }).click();
    await page.getByRole("heading", { level: 1, name: "organiser of everything" }).waitFor();
    const everything = (await http<{ roles: Array<Role & { toolGroups: string[] | null }> }>("GET", "/roles")).body.roles.find((role) => role.name === "organiser of everything")!;
    expect(everything.toolGroups).toBeNull();
  });

  consoleTest("roles and groups - the roles list shows each role's tool tokens and the groups page each group's, as the API counts them", async (page) => {
    await signIn(page, "/console");
    await loaded(page);
    const { roles } = (await http<{ roles: Array<Role & { toolTokens: number }> }>("GET", "/roles")).body;
    for (const role of roles) {
      const item = page.locator("#role-list > li").filter({ has: page.getByRole("link", { name: role.name, exact: true }) });
      expect(await item.locator("[data-tokens]").textContent(), role.name).toBe(tokensLabel(role.toolTokens));
    }
    await page.goto(`${stack.url}/console/groups`);
    await loaded(page);
    const { groups } = (await http<{ groups: Array<{ id: string; tokens: number }> }>("GET", "/groups")).body;
    for (const group of groups) {
      const card = page.locator("#group-list > li").filter({ has: page.getByRole("heading", { level: 2, name: group.id, exact: true }) });
      expect(await card.locator("[data-tokens]").textContent(), group.id).toBe(tokensLabel(group.tokens));
    }
  });

  consoleTest("roles - deleting a role with active agents shows role_in_use's message, and a role an agent created says who", async (page) => {
    const busy = (await http<Role>("POST", "/roles", { name: "busy", rolePrompt: "Has agents.", toolGroups: ["artifact"] })).body;
    await createAgent(busy.id, "busy-1");
    const organisers = (await http<Role>("POST", "/roles", { name: "organisers", rolePrompt: "Organise.", toolGroups: ["org_management"] })).body;
    const root = await createAgent(organisers.id, "organiser");
    const byAgent = await callAs(root, "create_role", { name: "made by an agent", rolePrompt: "An agent wrote me.", toolGroups: ["org_management"] });
    expect(byAgent.status, JSON.stringify(byAgent.body)).toBe(200);

    await signIn(page, "/console");
    await loaded(page);
    const item = page.locator("#role-list > li").filter({ has: page.getByRole("link", { name: "made by an agent", exact: true }) });
    expect(await item.textContent()).toContain(`created by agent ${root.agent.id}`);

    await page.getByRole("link", { name: "busy", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "busy" }).waitFor();
    await page.getByRole("button", { name: "Delete role" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete role" }).click();
    const refusal = page.getByRole("dialog").getByRole("alert");
    await refusal.filter({ hasText: "Not deleted" }).waitFor();
    expect(await refusal.textContent()).toContain("Active agents in this role: 1");
    await page.screenshot({ path: join(RESULTS_DIR, "operator-role-in-use.png") });
    expect((await http("GET", `/roles/${busy.id}`)).status).toBe(200);
  });

  consoleTest("agents - create one (its token shown once, copyable), issue a fresh token, terminate it; the API agrees", async (page) => {
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: stack.url });
    await signIn(page, "/console/agents");
    await loaded(page);
    const form = page.getByRole("form", { name: "Create an agent" });
    await form.getByLabel("Role", { exact: true }).selectOption({ label: "writer" });
    await page.getByLabel("Name (optional)").fill("scribe");
    await page.getByLabel("Department (optional)").fill("docs");
    await page.getByLabel("Level (optional)").fill("3");
    await page.getByRole("button", { name: "Create agent" }).click();
    const tokenBox = page.getByLabel("Agent token");
    await tokenBox.waitFor();
    expect(await page.locator("#token-warning").textContent()).toContain("shown only now");
    const token = await tokenBox.inputValue();
    await page.getByRole("button", { name: "Copy token" }).click();
    await page.locator("#token-copied").filter({ hasText: "Copied" }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);

    const agentId = (await page.locator("#token-panel a").getAttribute("href"))!.split("/").pop()!;
    expect((await http<Agent>("GET", `/agents/${agentId}`)).body).toMatchObject({ name: "scribe", roleId: writerRole.id, department: "docs", level: 3, status: "active" });
    expect((await http("GET", `/agents/${agentId}/tools`, undefined, token)).status).toBe(200);
    await page.screenshot({ path: join(RESULTS_DIR, "operator-agent-token.png"), fullPage: true });

    await page.locator("#token-panel a").click();
    await page.getByRole("heading", { level: 1, name: "scribe" }).waitFor();
    expect(await page.locator("#token-panel").isVisible()).toBe(false);
    await page.getByRole("button", { name: "Issue a new token" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Issue new token" }).click();
    await tokenBox.waitFor();
    const fresh = await tokenBox.inputValue();
    expect(fresh).not.toBe(token);
    expect([401, 403]).toContain((await http("GET", `/agents/${agentId}/tools`, undefined, token)).status);
    expect((await http("GET", `/agents/${agentId}/tools`, undefined, fresh)).status).toBe(200);

    await page.getByRole("button", { name: "Terminate" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect((await http<Agent>("GET", `/agents/${agentId}`)).body.status).toBe("active");
    await page.getByRole("button", { name: "Terminate" }).click();
    await dialog.getByRole("button", { name: "Terminate" }).click();
    await page.locator("#agent-result").filter({ hasText: "Terminated" }).waitFor();
    expect((await http<Agent>("GET", `/agents/${agentId}`)).body.status).toBe("terminated");
    expect(await page.locator("#agent-facts").textContent()).toContain("terminated");
    expect([401, 403]).toContain((await http("GET", `/agents/${agentId}/tools`, undefined, fresh)).status);
  });

  consoleTest("agents - the list filters by role and status, newest first, as GET /agents does", async (page) => {
    const listers = (await http<Role>("POST", "/roles", { name: "lister", rolePrompt: "Listed.", toolGroups: ["artifact"] })).body;
    const first = await createAgent(listers.id, "lister-1");
    await createAgent(listers.id, "lister-2");
    expect((await http("DELETE", `/agents/${first.agent.id}`)).status).toBe(200);

    await signIn(page, `/console/agents`);
    await loaded(page);
    await page.getByRole("form", { name: "Filter the agents" }).getByLabel("Role", { exact: true }).selectOption({ label: "lister" });
    await page.locator("#agent-rows > tr").first().waitFor();
    await page.waitForFunction(() => document.querySelectorAll("#agent-rows > tr").length === 2);
    const names = await page.locator("#agent-rows > tr > th").allTextContents();
    const api = (await http<{ agents: Agent[] }>("GET", `/agents?roleId=${listers.id}`)).body.agents.map((agent) => agent.name);
    expect(names).toEqual(api);
    expect(names).toEqual(["lister-2", "lister-1"]);
    await page.getByLabel("Status").selectOption("terminated");
    await page.waitForFunction(() => document.querySelectorAll("#agent-rows > tr").length === 1);
    expect(await page.locator("#agent-rows > tr > th").allTextContents()).toEqual(["lister-1"]);
  });

  consoleTest("agents - a filter's answer is never replaced by an older request's answer that arrives after it", async (page) => {
    const late = (await http<Role>("POST", "/roles", { name: "late answers", rolePrompt: "Filtered.", toolGroups: ["artifact"] })).body;
    await createAgent(late.id, "late-1");
    let releaseUnfiltered!: () => void;
    const unfilteredHeld = new Promise<void>((resolve) => (releaseUnfiltered = resolve));
    let heldOne!: () => void;
    const held = new Promise<void>((resolve) => (heldOne = resolve));
    await page.route(/\/agents\?/, async (route) => {
      if (!new URL(route.request().url()).searchParams.has("roleId")) {
        heldOne();
        await unfilteredHeld;
      }
      await route.continue();
    });
    await signIn(page, "/console/agents");
    await held;
    await page.getByRole("form", { name: "Filter the agents" }).getByLabel("Role", { exact: true }).selectOption({ label: "late answers" });
    await page.locator("#agent-rows > tr").first().waitFor();
    releaseUnfiltered();
    await loaded(page);
    await page.waitForLoadState("networkidle");
    expect(await page.locator("#agent-rows > tr > th").allTextContents()).toEqual(["late-1"]);
  });

  consoleTest("call history - an agent's calls newest first, filtered by status and tool, each with its record", async (page) => {
    const agent = await createAgent(writerRole.id, "historian");
    expect((await callAs(agent, "put_artifact", { content: "first note", name: "one.md" })).status).toBe(200);
    expect((await callAs(agent, "get_artifact", { artifactId: "art_missing" })).status).toBeGreaterThanOrEqual(200);
    expect((await callAs(agent, "deploy_service", { service: "web", apiToken: "tok-very-secret-123" })).status).toBe(202);
    expect((await callAs(agent, "put_artifact", { content: "second note" })).status).toBe(200);

    await signIn(page, `/console/agents/${agent.agent.id}`);
    await page.getByRole("heading", { level: 1, name: "historian" }).waitFor();
    await page.locator("#call-list > li").first().waitFor();
    const all = (await http<{ calls: Array<{ callId: string; tool: string; status: string }> }>("GET", `/agents/${agent.agent.id}/calls`)).body.calls;
    expect(await page.locator("#call-list > li").evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.call))).toEqual(all.map((call) => call.callId));

    const waiting = page.locator("#call-list > li").filter({ hasText: "deploy_service" });
    await waiting.locator("summary").click();
    const record = (await waiting.textContent())!;
    expect(record).toContain("[REDACTED]");
    expect(record).toContain('"service": "web"');
    expect(record).not.toContain("tok-very-secret-123");
    expect(record).toContain("Approval deadline");

    await page.getByLabel("Tool").fill("put_artifact");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForFunction(() => document.querySelectorAll("#call-list > li").length === 2);
    const filtered = (await http<{ calls: Array<{ callId: string }> }>("GET", `/agents/${agent.agent.id}/calls?tool=put_artifact`)).body.calls;
    expect(await page.locator("#call-list > li").evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.call))).toEqual(filtered.map((call) => call.callId));
    await page.locator("#call-list > li").last().locator("summary").click();
    expect(await page.locator("#call-list > li").last().textContent()).toContain("first note");

    await page.getByLabel("Tool").fill("");
    await page.getByLabel("Status").selectOption("awaiting_confirmation");
    await page.waitForFunction(() => document.querySelectorAll("#call-list > li").length === 1);
    expect(await page.locator("#call-list > li").textContent()).toContain("deploy_service");
    await page.screenshot({ path: join(RESULTS_DIR, "operator-call-history.png"), fullPage: true });
  });

  consoleTest("approvals - the queue with its count; Approve runs the tool once, a second answer is refused with a message, new calls appear without a reload", async (page) => {
    expect((await http("PATCH", "/tools/put_artifact/policy", { requireConfirmation: true })).status).toBe(200);
    const agent = await createAgent(writerRole.id, "approver-test");
    try {
      const asked = await callAs(agent, "put_artifact", { content: "needs a yes", name: "approved.md" });
      expect(asked.status).toBe(202);
      const other = await callAs(agent, "deploy_service", { service: "db", apiToken: "tok-other-secret-456" });
      expect(other.status).toBe(202);

      await signIn(page, "/console/approvals");
      const card = (callId: string) => page.locator(`li.approval[data-call="${callId}"]`);
      await card(asked.body.callId).waitFor();
      const queue = (await http<{ calls: Array<{ callId: string }> }>("GET", "/calls?status=awaiting_confirmation")).body.calls;
      expect(await page.locator("#approval-list > li").count()).toBe(queue.length);
      expect(await page.locator("#approval-count").textContent()).toBe(String(queue.length));
      const text = (await card(other.body.callId).textContent())!;
      for (const expected of ["deploy_service", "approver-test", "writer", "[REDACTED]", "Approval deadline"]) expect(text).toContain(expected);
      expect(text).not.toContain("tok-other-secret-456");
      await page.screenshot({ path: join(RESULTS_DIR, "operator-approvals.png"), fullPage: true });

      await card(asked.body.callId).getByRole("button", { name: "Approve" }).click();
      await card(asked.body.callId).getByRole("status").filter({ hasText: "Approved" }).waitFor();
      const approved = (await http("GET", `/agents/${agent.agent.id}/calls/${asked.body.callId}`)).body;
      expect(approved).toMatchObject({ status: "completed", approvedBy: "admin" });
      expect((await http("POST", `/calls/${asked.body.callId}/approve`)).status).toBe(409);
      const artifacts = (await http<{ calls: Array<{ tool: string; status: string }> }>("GET", `/agents/${agent.agent.id}/calls`)).body.calls;
      expect(artifacts.filter((call) => call.tool === "put_artifact" && call.status === "completed")).toHaveLength(1);

      expect((await http("POST", `/calls/${other.body.callId}/deny`)).status).toBe(200);
      await card(other.body.callId).getByRole("button", { name: "Approve" }).click();
      const refusal = card(other.body.callId).getByRole("status");
      await refusal.filter({ hasText: "is not awaiting confirmation: it is denied" }).waitFor();
      expect((await http("GET", `/agents/${agent.agent.id}/calls/${other.body.callId}`)).body.status).toBe("denied");

      const late = await callAs(agent, "put_artifact", { content: "arrives later" });
      expect(late.status).toBe(202);
      await card(late.body.callId).waitFor({ timeout: 15_000 });
      await card(late.body.callId).getByRole("button", { name: "Deny" }).click();
      await card(late.body.callId).getByRole("status").filter({ hasText: "Denied" }).waitFor();
      expect((await http("GET", `/agents/${agent.agent.id}/calls/${late.body.callId}`)).body.status).toBe("denied");
    } finally {
      await http("PATCH", "/tools/put_artifact/policy", { requireConfirmation: null });
    }
  });

  const approvalCard = (page: Page, callId: string) => page.locator(`li.approval[data-call="${callId}"]`);
  const queued = (page: Page) => page.locator("#approval-list > li").evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.call));
  const QUEUE_REQUEST = /\/calls\?status=awaiting_confirmation/;
  /** Asks for the queue now and waits until the page shows it was checked again. */
  async function refreshed(page: Page) {
    const checked = () => page.locator("#queue-updated time").getAttribute("datetime");
    const before = await checked();
    await page.getByRole("button", { name: "Refresh now" }).click();
    await page.waitForFunction((previous) => document.querySelector("#queue-updated time")?.getAttribute("datetime") !== previous, before);
  }

  consoleTest("approvals - a decided card leaves the queue for 'Just decided'; a card whose answer is on its way is never replaced by a refresh, and its answer lands on it", async (page) => {
    for (const waiting of (await http<{ calls: Array<{ callId: string }> }>("GET", "/calls?status=awaiting_confirmation")).body.calls)
      expect((await http("POST", `/calls/${waiting.callId}/deny`)).status).toBe(200);
    const agent = await createAgent(writerRole.id, "queue-keeper");
    const first = (await callAs(agent, "deploy_service", { service: "api", apiToken: "tok-first" })).body.callId as string;
    const second = (await callAs(agent, "deploy_service", { service: "db", apiToken: "tok-second" })).body.callId as string;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let reached!: () => void;
    const approvedOnServer = new Promise<void>((resolve) => (reached = resolve));
    await page.route(`**/calls/${first}/approve`, async (route) => {
      const response = await route.fetch();
      reached();
      await held;
      await route.fulfill({ response });
    });

    await signIn(page, "/console/approvals");
    await approvalCard(page, second).waitFor();
    await approvalCard(page, first).evaluate((card) => ((card as HTMLElement & { marked?: string }).marked = "the first card"));
    await approvalCard(page, first).getByRole("button", { name: "Approve" }).click();
    await approvedOnServer;
    expect((await http("GET", `/agents/${agent.agent.id}/calls/${first}`)).body.status).toBe("authorized");

    const third = (await callAs(agent, "deploy_service", { service: "cache", apiToken: "tok-third" })).body.callId as string;
    await page.getByRole("button", { name: "Refresh now" }).click();
    await approvalCard(page, third).waitFor();
    expect(await approvalCard(page, first).evaluate((card) => (card as HTMLElement & { marked?: string }).marked)).toBe("the first card");
    expect(await approvalCard(page, first).getByRole("status").textContent()).toBe("Approving…");

    release();
    const decided = page.locator("#decided-list > li.approval");
    await decided.filter({ hasText: "Approved: the call is now authorized." }).waitFor();
    expect(await page.locator(`#decided-list > li[data-call="${first}"]`).evaluate((card) => (card as HTMLElement & { marked?: string }).marked)).toBe("the first card");
    expect(await page.locator(`#decided-list > li[data-call="${first}"]`).textContent()).not.toContain("deadline");
    expect(await queued(page)).not.toContain(first);
    await refreshed(page);
    expect(await queued(page)).toEqual([second, third]);

    for (const callId of [second, third]) {
      await approvalCard(page, callId).getByRole("button", { name: "Deny" }).click();
      await page.locator(`#decided-list > li[data-call="${callId}"]`).getByRole("status").filter({ hasText: "Denied" }).waitFor();
    }
    await refreshed(page);
    expect(await queued(page)).toEqual([]);
    await page.locator("#load-status").filter({ hasText: "No call is waiting for approval." }).waitFor();
    expect(await page.locator("#decided-list > li").evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.call))).toEqual([third, second, first]);
    await page.screenshot({ path: join(RESULTS_DIR, "operator-approvals-decided.png"), fullPage: true });
  });

  consoleTest("agents - terminating an agent cancels its waiting calls: the page says how many, its calls show as cancelled, the queue drops them and a card still open says why it cannot be approved", async (page) => {
    const agent = await createAgent(writerRole.id, "short-lived");
    const waiting = [
      (await callAs(agent, "deploy_service", { service: "web", apiToken: "tok-a" })).body.callId as string,
      (await callAs(agent, "deploy_service", { service: "worker", apiToken: "tok-b" })).body.callId as string,
    ];
    const record = (await http("GET", `/agents/${agent.agent.id}/calls/${waiting[0]}`)).body;

    await signIn(page, "/console/approvals");
    const open = approvalCard(page, waiting[0]!);
    await open.waitFor();
    // The queue's refreshes are held from here, so the card stays open while the agent is terminated elsewhere.
    let releaseQueue!: () => void;
    const queueHeld = new Promise<void>((resolve) => (releaseQueue = resolve));
    const holdQueue = async (route: Route) => {
      await queueHeld;
      await route.continue().catch(() => {});
    };
    await page.route(QUEUE_REQUEST, holdQueue);
    const deadlineOf = (scope: ReturnType<Page["locator"]>) => scope.locator("dt", { hasText: "Approval deadline" }).locator("xpath=following-sibling::dd[1]/time").getAttribute("datetime");
    expect(await deadlineOf(open)).toBe(record.deadline);

    const agentPage = await page.context().newPage();
    await signIn(agentPage, `/console/agents/${agent.agent.id}`);
    await agentPage.getByRole("heading", { level: 1, name: "short-lived" }).waitFor();
    const listed = agentPage.locator(`#call-list > li[data-call="${waiting[0]}"]`);
    await listed.locator("summary").click();
    expect(await deadlineOf(listed)).toBe(record.deadline);
    await agentPage.getByRole("button", { name: "Terminate" }).click();
    await agentPage.getByRole("dialog").getByRole("button", { name: "Terminate" }).click();
    await agentPage.locator("#agent-result").filter({ hasText: "its 2 waiting calls were cancelled" }).waitFor();
    await agentPage.locator(`#call-list > li[data-call="${waiting[0]}"]`).filter({ hasText: "cancelled (agent terminated)" }).waitFor();
    await agentPage.getByLabel("Status").selectOption("cancelled");
    await agentPage.waitForFunction(() => document.querySelectorAll("#call-list > li").length === 2);
    expect((await agentPage.locator("#call-list > li").evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.call))).sort()).toEqual([...waiting].sort());
    await agentPage.close();

    await open.getByRole("button", { name: "Approve" }).click();
    const refused = page.locator(`#decided-list > li[data-call="${waiting[0]}"]`).getByRole("status");
    await refused.filter({ hasText: "was terminated" }).waitFor();
    releaseQueue();
    await page.unroute(QUEUE_REQUEST, holdQueue);
    await refreshed(page);
    expect(await queued(page)).not.toContain(waiting[1]);
    expect((await http("GET", `/agents/${agent.agent.id}/calls/${waiting[0]}`)).body).toMatchObject({ status: "cancelled", error: { code: "agent_terminated" } });
  });

  for (const [label, viewport] of [
    ["desktop", { width: 1280, height: 900 }],
    ["phone", { width: 390, height: 844 }],
  ] as const)
    consoleTest(
      `console - the operator pages fit a ${label} screen without sideways scrolling`,
      async (page) => {
        const agent = await createAgent(writerRole.id, `layout-${label}`);
        await callAs(agent, "put_artifact", { content: "a note for the layout" });
        await signIn(page, "/console/approvals");
        for (const [name, path] of [
          ["approvals", "/console/approvals"],
          ["agents", "/console/agents"],
          ["agent", `/console/agents/${agent.agent.id}`],
          ["tools", "/console/tools"],
          ["tool", "/console/tools/deploy_service"],
          ["modules", "/console/modules"],
          ["groups", "/console/groups"],
        ] as const) {
          await page.goto(`${stack.url}${path}`);
          await page.getByRole("button", { name: "Sign out" }).waitFor();
          await page.waitForLoadState("networkidle");
          expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), name).toBeLessThanOrEqual(0);
          await page.screenshot({ path: join(RESULTS_DIR, `operator-${name}-${label}.png`), fullPage: true });
        }
      },
      viewport,
    );
});
