import { mkdtemp, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startLocalProcess } from "../support/local-process";
import type { LocalProcess } from "../support/local-process";
import { launchChromium, RESULTS_DIR, stackRequest, tearDown, withPage, signIn as signInAs, loaded } from "./browser";

type Issued = { agent: { id: string; name: string }; token: string };

const HTTP_REQUEST = {
  type: "function",
  function: {
    name: "http_request",
    description: "Fetch a URL through the payments proxy.",
    parameters: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
  },
};

describe("tools in layers in Chromium", () => {
  let dataDir: string;
  let stack: LocalProcess;
  let browser: Browser;
  let payer: Issued;
  let outsider: Issued;

  const http = stackRequest(() => stack);

  const signIn = async (page: Page, path: string) => {
    await signInAs(page, stack, path);
    await loaded(page);
  };

  /** The agent page's tools table: each row's cells' text, by tool name. */
  async function toolRows(page: Page) {
    await page.locator("#agent-tool-rows tr").first().waitFor();
    const rows = await page.locator("#agent-tool-rows tr").evaluateAll((rows) =>
      rows.map((row) => [row.getAttribute("data-tool"), [...row.children].map((cell) => cell.textContent?.replace(/\s+/g, " ").trim())] as const),
    );
    return new Map(rows);
  }

  beforeAll(async () => {
    await mkdir(RESULTS_DIR, { recursive: true });
    dataDir = await mkdtemp(join(tmpdir(), "toolgate-layers-"));
    [stack, browser] = await Promise.all([startLocalProcess(dataDir), launchChromium()]);
    const role = await http<{ id: string }>("POST", "/roles", { name: "clerk", rolePrompt: "Keep the books.", toolGroups: null });
    expect(role.status).toBe(201);
    payer = (await http<Issued>("POST", "/agents", { roleId: role.body.id, name: "payer", department: "payments" })).body;
    outsider = (await http<Issued>("POST", "/agents", { roleId: role.body.id, name: "outsider", department: "research" })).body;
    const proxy = { description: "HTTP requests through the payments proxy.", scope: "department:payments", executor: { type: "http", url: "http://127.0.0.1:9/proxy" }, tools: [HTTP_REQUEST] };
    expect((await http("PUT", "/groups/payments-proxy", proxy)).status).toBe(201);
  });

  afterAll(() => tearDown(browser, stack, dataDir));

  const layersTest = (name: string, body: (page: Page) => Promise<void>) => test(name, () => withPage(browser, name, body), 120_000);

  layersTest("group form - a department's own http_request is registered from the groups page, filtered by its scope, then moved to one agent with Edit", async (page) => {
    await signIn(page, "/console/groups");
    const form = page.locator("#group-form");
    await form.getByLabel("Group id").fill("audit-proxy");
    await form.getByLabel("Description").fill("HTTP requests through the audit proxy.");
    await form.getByLabel(/One department/).check();
    await form.getByLabel("Department", { exact: true }).fill("audit");
    await form.getByLabel("What runs its tools").selectOption("http");
    await form.getByLabel("URL").fill("http://127.0.0.1:9/audit");
    await form.getByLabel("Tools (JSON)").fill(JSON.stringify([HTTP_REQUEST]));
    await form.getByRole("button", { name: "Register group" }).click();
    await expect.poll(() => page.locator("#group-form-status").textContent()).toBe("Registered audit-proxy for the department audit, with 1 tool.");
    const stored = await http("GET", "/groups/audit-proxy");
    expect(stored.body).toMatchObject({ scope: "department:audit", source: "api", executor: { type: "http", url: "http://127.0.0.1:9/audit" }, tools: [HTTP_REQUEST] });
    await expect.poll(() => page.locator("#group-audit-proxy").textContent()).toContain("department audit");

    await page.getByLabel("For", { exact: true }).selectOption("department:audit");
    await expect.poll(() => page.locator("#group-list > li").evaluateAll((cards) => cards.map((card) => card.getAttribute("data-group")))).toEqual(["audit-proxy"]);
    await expect.poll(() => page.locator("#group-count").textContent()).toBe("1 group for the department audit");

    await page.getByRole("button", { name: "Edit audit-proxy" }).click();
    await expect.poll(() => form.getByLabel("Department", { exact: true }).inputValue()).toBe("audit");
    expect(await form.getByLabel(/One department/).isChecked()).toBe(true);
    await form.getByLabel(/One agent/).check();
    await form.getByLabel("Agent id").fill(outsider.agent.id);
    await form.getByRole("button", { name: "Register group" }).click();
    await expect.poll(() => page.locator("#group-form-status").textContent()).toBe(`Replaced audit-proxy for the agent ${outsider.agent.id}, with 1 tool.`);
    expect((await http("GET", "/groups/audit-proxy")).body).toMatchObject({ scope: `agent:${outsider.agent.id}`, tools: [HTTP_REQUEST] });
    expect((await http("DELETE", "/groups/audit-proxy")).status).toBe(204);

    await form.getByLabel("Group id").fill("nobodys");
    await form.getByLabel("Description").fill("For an agent that does not exist.");
    await form.getByLabel(/One agent/).check();
    await form.getByLabel("Agent id").fill("agt_nobody");
    await form.getByLabel("URL").fill("http://127.0.0.1:9/run");
    await form.getByLabel("Tools (JSON)").fill("[{");
    await form.getByRole("button", { name: "Register group" }).click();
    await expect.poll(() => page.locator("#group-form-error").textContent()).toContain("The tools are not valid JSON");
    await form.getByLabel("Tools (JSON)").fill(JSON.stringify([{ ...HTTP_REQUEST, function: { ...HTTP_REQUEST.function, name: "lonely_tool" } }]));
    await form.getByRole("button", { name: "Register group" }).click();
    await expect.poll(() => page.locator("#group-form-error").textContent()).toContain("agt_nobody");
    expect((await http("GET", "/groups/nobodys")).status).toBe(404);
  });

  layersTest("agent page - each tool shows its layer and what it shadows: the department's http_request and the agent's own tool for it, everyone's for another agent", async (page) => {
    const own = { ...HTTP_REQUEST, function: { ...HTTP_REQUEST.function, name: "settle_invoice", description: "Settle an invoice." } };
    expect((await http("PUT", "/groups/payer-own", { description: "The payer's own.", scope: `agent:${payer.agent.id}`, executor: { type: "http", url: "http://127.0.0.1:9/own" }, tools: [own] })).status).toBe(201);

    await signIn(page, `/console/agents/${payer.agent.id}`);
    const rows = await toolRows(page);
    expect(rows.get("http_request")).toEqual(["http_request", "department payments", "payments-proxy", "network (everyone)"]);
    expect(rows.get("settle_invoice")).toEqual(["settle_invoice", "its own", "payer-own", "—"]);
    expect([...rows.keys()].slice(0, 2)).toEqual(["settle_invoice", "http_request"]);
    const layers = (await http<{ tools: Array<{ name: string }> }>("GET", `/agents/${payer.agent.id}/tools/layers`)).body.tools;
    expect([...rows.keys()].sort()).toEqual(layers.map((tool) => tool.name).sort());
    await expect.poll(() => page.locator("#tools-status").textContent()).toContain("1 of them is in front of a wider layer's tool of the same name");

    await page.goto(`${stack.url}/console/agents/${outsider.agent.id}`);
    await loaded(page);
    const theirs = await toolRows(page);
    expect(theirs.get("http_request")).toEqual(["http_request", "everyone", "network", "—"]);
    expect(theirs.has("settle_invoice")).toBe(false);
  });

  layersTest("departments page - each department with its active agents and its groups, linked from an agent's page", async (page) => {
    await signIn(page, `/console/agents/${payer.agent.id}`);
    await page.locator("#agent-facts").getByRole("link", { name: "payments" }).click();
    await loaded(page);
    await page.locator("#department-rows tr").first().waitFor();
    const rows = await page.locator("#department-rows tr").evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent?.trim())));
    const { departments } = (await http<{ departments: Array<{ name: string }> }>("GET", "/departments")).body;
    expect(rows.map((row) => row[0])).toEqual(departments.map((department) => department.name));
    expect(rows).toContainEqual(["payments", "1 active agent", "payments-proxy"]);
    expect(rows).toContainEqual(["research", "1 active agent", "—"]);
    expect(await page.locator("#department-payments").getAttribute("class")).toContain("row-target");
  });
});
