import { mkdtemp, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { publishModuleEvent } from "../support/events";
import { startLocalProcess } from "../support/local-process";
import type { LocalProcess } from "../support/local-process";
import { launchChromium, RESULTS_DIR, tearDown, withPage, signIn as signInAs } from "./browser";

const tool = (name: string, description: string) => ({
  type: "function",
  function: { name, description, parameters: { type: "object", properties: {} } },
});

type Role = { id: string; name: string; rolePrompt: string; toolGroups: string[] | null; effectiveToolGroups: string[]; version: number };
type GroupSummary = { id: string; description: string; tools: string[]; source: string; module?: string };

describe("role console in Chromium", () => {
  let dataDir: string;
  let stack: LocalProcess;
  let browser: Browser;
  const roles: Record<string, Role> = {};

  const api = async <T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${stack.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${stack.adminToken}`, "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  };
  const getRole = async (id: string) => (await api<Role>("GET", `/roles/${id}`)).body;
  const listGroups = async () => (await api<{ groups: GroupSummary[] }>("GET", "/groups")).body.groups;

  const open = (page: Page, path: string) => page.goto(`${stack.url}${path}`);
  const signIn = (page: Page, path?: string) => signInAs(page, stack, path);
  async function openRole(page: Page, role: Role) {
    await signIn(page, `/console/roles/${role.id}`);
    await page.getByRole("heading", { level: 1, name: role.name }).waitFor();
  }
  const checkbox = (page: Page, groupId: string) => page.getByRole("checkbox", { name: groupId, exact: true });
  const shownVersion = (page: Page) => page.locator("#role-version").textContent();
  const tickedOnPage = (page: Page) =>
    page.locator("#groups-form input[name=toolGroups]:checked").evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value));

  async function loadModule(module: string, description: string, tools: unknown[]) {
    const sent = await publishModuleEvent(stack, "module.loaded", { module, version: 1, description, tools });
    expect(sent.FailedEntryCount).toBe(0);
    for (const until = Date.now() + 15_000; (await api("GET", `/modules/${module}`)).body?.status !== "loaded"; ) {
      if (Date.now() > until) throw new Error(`the module ${module} did not load`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function createRole(name: string, rolePrompt: string, toolGroups?: string[]) {
    const created = await api<Role>("POST", "/roles", { name, rolePrompt, ...(toolGroups ? { toolGroups } : {}) });
    expect(created.status).toBe(201);
    roles[name] = created.body;
    return created.body;
  }

  beforeAll(async () => {
    await mkdir(RESULTS_DIR, { recursive: true });
    dataDir = await mkdtemp(join(tmpdir(), "toolgate-browser-"));
    [stack, browser] = await Promise.all([startLocalProcess(dataDir), launchChromium()]);

    await loadModule("crawler", "Fetch and read web pages for research.", [
      tool("fetch_page", "Fetch a web page."),
      tool("extract_links", "List the links on a page."),
    ]);
    for (const [id, description, tools] of [
      ["chrome", "Chrome browser control", [tool("open_tab", "Open a tab."), tool("click_element", "Click an element.")]],
      ["search", "Code search over the repositories", [tool("search_code", "Search code.")]],
      ["legacy", "An old module about to be removed", [tool("legacy_lookup", "Look something up the old way.")]],
    ] as const) expect((await api("PUT", `/groups/${id}`, { description, tools })).status).toBe(201);

    await createRole("browser tester", "Test web pages in Chrome.\nReport what breaks.", ["chrome"]);
    await createRole("researcher", "Research a topic.");
    await createRole("legacy user", "Still uses the old lookup.", ["search", "legacy"]);
    await createRole("conflicted", "Two people edit this one.", ["chrome"]);
    expect((await api("DELETE", "/groups/legacy")).status).toBe(204);
  });

  afterAll(() => tearDown(browser, stack, dataDir));

  const consoleTest = (name: string, body: (page: Page) => Promise<void>, viewport?: { width: number; height: number }) =>
    test(name, () => withPage(browser, name, body, viewport), 90_000);

  consoleTest("console - a wrong token shows an error and nothing else", async (page) => {
    const response = await open(page, "/console");
    expect(response?.headers()["content-security-policy"]).toContain("script-src 'self'");
    await page.getByLabel("Admin token").fill("not-the-admin-token");
    await page.getByRole("button", { name: "Sign in" }).click();

    const alert = page.getByRole("alert").filter({ hasText: "Sign-in failed" });
    await alert.waitFor();
    expect(await alert.textContent()).toContain("The token is not valid.");
    expect(await page.getByRole("link", { name: "browser tester" }).count()).toBe(0);
    expect(await page.getByRole("list").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Sign out" }).isVisible()).toBe(false);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(page.url()).toBe(`${stack.url}/console`);
  });

  consoleTest("console - each group shows what its tools cost in tokens, and the role's total follows the boxes before saving", async (page) => {
    const role = roles["browser tester"]!;
    const tokensOf = Object.fromEntries((await api<{ groups: Array<GroupSummary & { tokens: number }> }>("GET", "/groups")).body.groups.map((g) => [g.id, g.tokens]));
    const saved = (await getRole(role.id)) as Role & { toolTokens: number };
    expect(saved.toolTokens).toBe(tokensOf.chrome);
    const label = (tokens: number) => `${tokens.toLocaleString("en")} tokens`;
    await openRole(page, role);
    for (const id of ["chrome", "search", "crawler"]) expect(await page.locator(`#group-${id}-tokens`).textContent()).toBe(label(tokensOf[id]!));
    const line = page.locator("#groups-tokens");
    expect(await line.textContent()).toBe(`Tool context: ${label(saved.toolTokens)} for each of this role's agents.`);
    await checkbox(page, "search").check();
    expect(await line.textContent()).toContain(`about ${label(tokensOf.chrome! + tokensOf.search!)}`);
    await checkbox(page, "search").uncheck();
    expect(await line.textContent()).toBe(`Tool context: ${label(saved.toolTokens)} for each of this role's agents.`);
    await checkbox(page, "chrome").uncheck();
    const everyGroup = Object.values(tokensOf).reduce((sum, tokens) => sum + tokens, 0);
    expect(await line.textContent()).toContain(`about ${label(everyGroup)}`);
  });

  consoleTest("console - search mode: pinning tools shows the cost before saving, and the API agrees with what was saved", async (page) => {
    const role = await createRole("search tester", "Finds its tools.", ["chrome", "search"]);
    const label = (tokens: number) => `${tokens.toLocaleString("en")} tokens`;
    const { loadingTokens } = (await getRole(role.id)) as Role & { loadingTokens: { all: number; searchTools: number } };
    const toolTokens = Object.fromEntries((await api<{ tools: Array<{ name: string; tokens: number }> }>("GET", "/tools")).body.tools.map((t) => [t.name, t.tokens]));
    await openRole(page, role);
    expect(await page.getByRole("radio", { name: "All tools in the context" }).isChecked()).toBe(true);
    expect(await page.locator("#pinned").isVisible()).toBe(false);

    await page.getByRole("radio", { name: /^Search/ }).check();
    const pins = page.locator("#pinned-options input");
    expect(await pins.evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value))).toEqual(["open_tab", "click_element", "search_code"]);
    const line = page.locator("#groups-tokens");
    expect(await line.textContent()).toContain(`about ${label(loadingTokens.searchTools)}`);
    await page.getByRole("checkbox", { name: "open_tab" }).check();
    expect(await line.textContent()).toContain(`about ${label(loadingTokens.searchTools + toolTokens.open_tab!)}`);
    expect(await page.locator("#groups-summary").textContent()).toContain("1 pinned tool");
    await page.screenshot({ path: join(RESULTS_DIR, "console-search-mode.png"), fullPage: true });
    await page.getByRole("button", { name: "Save" }).click();
    await page.locator("#save-status").filter({ hasText: "Saved." }).waitFor();

    const saved = (await getRole(role.id)) as Role & { toolLoading: string; pinnedTools: string[]; toolTokens: number };
    expect(saved).toMatchObject({ toolLoading: "search", pinnedTools: ["open_tab"], toolTokens: loadingTokens.searchTools + toolTokens.open_tab! });
    expect(await line.textContent()).toBe(`Tool context: ${label(saved.toolTokens)} for each of this role's agents (loading all its tools would take ${label(loadingTokens.all)}).`);
    const agent = (await api("POST", "/agents", { roleId: role.id })).body;
    const listed = (await api("GET", `/agents/${agent.agent.id}/tools`)).body;
    expect(listed.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(["open_tab", "search_tools", "call_tool"]);
    expect(listed.tokens).toBe(saved.toolTokens);
  });

  consoleTest("console - signing in lists every role as a link named by the role", async (page) => {
    await open(page, "/console");
    const field = page.getByLabel("Admin token");
    await field.focus();
    await page.keyboard.type(stack.adminToken);
    await page.keyboard.press("Enter");

    const { roles: listed } = (await api<{ roles: Role[] }>("GET", "/roles")).body;
    for (const role of listed) {
      const link = page.getByRole("link", { name: role.name, exact: true });
      await link.waitFor();
      expect(await link.getAttribute("href")).toBe(`./console/roles/${role.id}`);
    }
    expect(await page.locator("#role-list > li").count()).toBe(listed.length);
    expect(page.url()).not.toContain(stack.adminToken);
    expect(await page.evaluate(() => document.cookie)).toBe("");

    await page.getByRole("link", { name: "researcher", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "researcher" }).waitFor();
    expect(page.url()).toBe(`${stack.url}/console/roles/${roles.researcher!.id}`);

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Admin token").waitFor();
    expect(await page.getByRole("heading", { level: 1, name: "researcher" }).isVisible()).toBe(false);
    expect(await page.evaluate(() => sessionStorage.getItem("toolgate.console.adminToken"))).toBeNull();
  });

  consoleTest("console - a role created without toolGroups is marked as getting every group, including ones registered later", async (page) => {
    const created = await api<Role & { notice?: string; message?: string }>("POST", "/roles", { name: "generalist", rolePrompt: "Do anything." });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ toolGroups: null, notice: "default_all_tool_groups", message: expect.stringContaining("registered later") });
    await signIn(page);
    const item = page.locator("#role-list > li").filter({ has: page.getByRole("link", { name: "generalist", exact: true }) });
    await item.waitFor();
    expect(await item.textContent()).toContain("every group, including ones registered later");
    const scoped = page.locator("#role-list > li").filter({ has: page.getByRole("link", { name: "browser tester", exact: true }) });
    expect(await scoped.textContent()).not.toContain("registered later");
    await page.getByRole("link", { name: "generalist", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "generalist" }).waitFor();
    expect(await page.locator("#groups-summary").textContent()).toContain("including ones registered later");
  });

  consoleTest("console - a role's page shows every group with its description and tools, and a group no longer registered as unavailable", async (page) => {
    const role = roles["legacy user"]!;
    await openRole(page, role);
    expect(await page.locator("#role-prompt").textContent()).toBe(role.rolePrompt);

    const groups = await listGroups();
    expect(groups.map((group) => group.id)).not.toContain("legacy");
    for (const group of groups) {
      const box = checkbox(page, group.id);
      expect(await box.isChecked(), group.id).toBe(group.id === "search");
      const item = page.locator("#group-options > li").filter({ has: box });
      const text = await item.textContent();
      expect(text).toContain(group.description);
      for (const name of group.tools) expect(text).toContain(name);
    }
    const unavailable = page.getByRole("group", { name: "No longer registered" });
    expect(await unavailable.isVisible()).toBe(true);
    expect(await unavailable.getByRole("checkbox", { name: "legacy", exact: true }).isChecked()).toBe(true);
    expect(await unavailable.textContent()).toContain("unavailable");

    await page.getByRole("button", { name: "Save" }).click();
    const refusal = page.getByRole("alert").filter({ hasText: "Not saved" });
    await refusal.waitFor();
    await page.screenshot({ path: join(RESULTS_DIR, "console-unknown-group.png") });
    expect(await refusal.textContent()).toContain("These tool groups are not registered: legacy");
    expect(await page.getByRole("button", { name: "Reload" }).isVisible()).toBe(false);
    expect(await getRole(role.id)).toMatchObject({ toolGroups: ["search", "legacy"], version: role.version });

    await checkbox(page, "legacy").uncheck();
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    expect(await getRole(role.id)).toMatchObject({ toolGroups: ["search"], version: role.version + 1 });
    expect(await unavailable.isVisible()).toBe(false);
  });

  consoleTest("console - editing and saving a role's groups, twice, is what the API then holds", async (page) => {
    const role = roles["browser tester"]!;
    await openRole(page, role);
    expect(await page.locator("#role-prompt").textContent()).toBe("Test web pages in Chrome.\nReport what breaks.");
    expect(await shownVersion(page)).toBe(String(role.version));
    expect(await tickedOnPage(page)).toEqual(["chrome"]);

    await checkbox(page, "crawler").check();
    await checkbox(page, "search").focus();
    await page.keyboard.press("Space");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    const first = await getRole(role.id);
    expect([...first.toolGroups!].sort()).toEqual(["chrome", "crawler", "search"]);
    expect(first.version).toBe(role.version + 1);
    expect(await shownVersion(page)).toBe(String(first.version));

    await checkbox(page, "crawler").uncheck();
    await page.getByRole("button", { name: "Save" }).focus();
    await page.keyboard.press("Enter");
    await page.getByRole("status").filter({ hasText: `version ${first.version + 1}` }).waitFor();
    const second = await getRole(role.id);
    expect([...second.toolGroups!].sort()).toEqual(["chrome", "search"]);
    expect(second.version).toBe(first.version + 1);
    expect(await shownVersion(page)).toBe(String(second.version));

    await page.reload();
    await page.getByRole("heading", { level: 1, name: role.name }).waitFor();
    expect((await tickedOnPage(page)).sort()).toEqual(["chrome", "search"]);
    expect(await shownVersion(page)).toBe(String(second.version));
  });

  consoleTest("console - unticking every group asks first; Cancel changes nothing, Use all groups makes every group apply", async (page) => {
    const role = await getRole(roles["browser tester"]!.id);
    await openRole(page, role);
    for (const groupId of role.toolGroups!) await checkbox(page, groupId).uncheck();
    await page.getByRole("button", { name: "Save" }).click();

    const dialog = page.getByRole("dialog");
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain("all tool groups will then apply");
    expect(await dialog.textContent()).toContain("org_management included");
    expect(await dialog.getByRole("button").allTextContents()).toEqual(["Use all groups", "Cancel"]);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Cancel");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect(await getRole(role.id)).toMatchObject({ toolGroups: role.toolGroups, version: role.version });

    await page.getByRole("button", { name: "Save" }).click();
    await dialog.waitFor();
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect((await getRole(role.id)).version).toBe(role.version);

    await page.getByRole("button", { name: "Save" }).click();
    await dialog.getByRole("button", { name: "Use all groups" }).click();
    await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    const saved = await getRole(role.id);
    expect(saved.toolGroups === null || saved.toolGroups.length === 0).toBe(true);
    expect(saved.version).toBe(role.version + 1);
    expect(saved.effectiveToolGroups).toEqual((await listGroups()).map((group) => group.id));
    expect(await shownVersion(page)).toBe(String(saved.version));
    expect(await page.locator("#groups-summary").textContent()).toContain("uses all tool groups");
  });

  consoleTest("console - a save after someone else changed the role is refused, offers a reload and overwrites nothing", async (page) => {
    const role = roles.conflicted!;
    await openRole(page, role);
    const otherWriter = await api<Role>("PATCH", `/roles/${role.id}`, { toolGroups: ["search"] }, { "if-match": `"${role.version}"` });
    expect(otherWriter.status).toBe(200);

    await checkbox(page, "crawler").check();
    await page.getByRole("button", { name: "Save" }).click();
    const refusal = page.getByRole("alert").filter({ hasText: "Not saved" });
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain("changed by someone else");
    await page.screenshot({ path: join(RESULTS_DIR, "console-conflict.png") });
    expect(await getRole(role.id)).toMatchObject({ toolGroups: ["search"], version: otherWriter.body.version });

    await page.getByRole("button", { name: "Reload" }).click();
    await page.getByRole("status").filter({ hasText: "Reloaded" }).waitFor();
    expect(await tickedOnPage(page)).toEqual(["search"]);
    expect(await shownVersion(page)).toBe(String(otherWriter.body.version));

    await checkbox(page, "crawler").check();
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    const merged = await getRole(role.id);
    expect([...merged.toolGroups!].sort()).toEqual(["crawler", "search"]);
    expect(merged.version).toBe(otherWriter.body.version + 1);
  });

  consoleTest("console - the root role is read-only", async (page) => {
    const rootRole = await getRole("root");
    await openRole(page, rootRole);
    expect(await page.locator("#root-note").textContent()).toContain("read-only");
    const boxes = page.getByRole("checkbox");
    expect(await boxes.count()).toBe((await listGroups()).length);
    for (const box of await boxes.all()) expect(await box.isDisabled()).toBe(true);
    expect(await checkbox(page, "org_management").isChecked()).toBe(true);
    expect(await page.getByRole("button", { name: "Save" }).isVisible()).toBe(false);
    expect(await getRole("root")).toMatchObject({ toolGroups: ["org_management"], version: rootRole.version });
  });

  consoleTest("console - the groups page lists every group with its source or module and its tools", async (page) => {
    await signIn(page, "/console/groups");
    const groups = await listGroups();
    const cards = page.locator("#group-list > li");
    await page.getByRole("heading", { level: 2, name: "crawler" }).waitFor();
    expect(await cards.count()).toBe(groups.length);
    for (const group of groups) {
      const card = cards.filter({ has: page.getByRole("heading", { level: 2, name: group.id, exact: true }) });
      const text = (await card.textContent())!;
      expect(text).toContain(group.description);
      expect(text).toContain({ builtin: "built-in", module: "module", api: "added through the API" }[group.source]);
      if (group.module) expect(text).toContain(group.module);
      for (const name of group.tools) expect(text).toContain(name);
    }
    expect(await cards.filter({ hasText: "Module" }).filter({ hasText: "fetch_page" }).count()).toBe(1);
  });

  for (const [label, viewport] of [
    ["desktop", { width: 1280, height: 900 }],
    ["phone", { width: 390, height: 844 }],
  ] as const)
    consoleTest(
      `console - pages fit a ${label} screen without sideways scrolling`,
      async (page) => {
        await open(page, "/console");
        await page.getByLabel("Admin token").fill("wrong");
        await page.getByRole("button", { name: "Sign in" }).click();
        await page.getByRole("alert").filter({ hasText: "Sign-in failed" }).waitFor();
        await page.screenshot({ path: join(RESULTS_DIR, `console-sign-in-${label}.png`), fullPage: true });
        await signIn(page);
        for (const [name, path] of [
          ["roles", "/console"],
          ["role", `/console/roles/${roles["browser tester"]!.id}`],
          ["root", "/console/roles/root"],
          ["groups", "/console/groups"],
        ] as const) {
          await open(page, path);
          await page.locator("#load-status:empty").waitFor({ state: "attached" });
          await page.getByRole("button", { name: "Sign out" }).waitFor();
          expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), name).toBeLessThanOrEqual(0);
          await page.screenshot({ path: join(RESULTS_DIR, `console-${name}-${label}.png`), fullPage: true });
        }
        await open(page, `/console/roles/${roles["browser tester"]!.id}`);
        await page.locator("#load-status:empty").waitFor({ state: "attached" });
        for (const box of await page.locator("#group-options input:checked").all()) await box.uncheck();
        await page.getByRole("button", { name: "Save" }).click();
        await page.getByRole("dialog").waitFor();
        await page.screenshot({ path: join(RESULTS_DIR, `console-dialog-${label}.png`) });
        await page.getByRole("button", { name: "Cancel" }).click();
      },
      viewport,
    );
});
