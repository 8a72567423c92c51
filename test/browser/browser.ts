import { access, mkdir, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { chromium } from "playwright-core";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { LocalProcess } from "../support/local-process";

const CHROMIUM = "/usr/bin/chromium";
export const RESULTS_DIR = resolve(import.meta.dirname, "../../test-results");

/** Debian's chromium, headless, with a fresh profile (Playwright gives every launch its own user data dir). */
export async function launchChromium(): Promise<Browser> {
  await access(CHROMIUM).catch(() => {
    throw new Error(`The browser tests drive Debian's chromium at ${CHROMIUM}: install it with "apt-get install -y chromium".`);
  });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

export const screenshotPath = (name: string) => join(RESULTS_DIR, `${name.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-|-$/g, "")}.png`);

export type PageProblems = { pageErrors: string[]; securityViolations: string[] };

/**
 * Runs `body` in a fresh browser context (its own sessionStorage) and, when it fails, saves a
 * full-page screenshot under test-results/ before the context closes. Script errors and CSP
 * violations fail the test too.
 */
export async function withPage(
  browser: Browser,
  name: string,
  body: (page: Page, context: BrowserContext) => Promise<void>,
  viewport = { width: 1280, height: 900 },
): Promise<void> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const problems: PageProblems = { pageErrors: [], securityViolations: [] };
  page.on("pageerror", (error) => problems.pageErrors.push(String(error)));
  page.on("console", (message) => {
    if (message.type() === "error" && /Content Security Policy|Refused to/i.test(message.text())) problems.securityViolations.push(message.text());
  });
  try {
    await body(page, context);
    if (problems.pageErrors.length || problems.securityViolations.length)
      throw new Error(`The page reported problems: ${JSON.stringify(problems, null, 2)}`);
  } catch (error) {
    await mkdir(RESULTS_DIR, { recursive: true });
    const path = screenshotPath(name);
    await page.screenshot({ path, fullPage: true }).catch(() => {});
    if (error instanceof Error) error.message += `\n(screenshot: ${path})`;
    throw error;
  } finally {
    await context.close();
  }
}

/** Closes the browser, stops `npm start` (killed if SIGTERM has not ended it in 15 s) and removes its data. */
export async function tearDown(browser: Browser | undefined, stack: LocalProcess | undefined, dataDir: string | undefined) {
  await browser?.close();
  if (stack) {
    const killer = setTimeout(() => stack.child.kill("SIGKILL"), 15_000);
    await stack.stop("SIGTERM");
    clearTimeout(killer);
  }
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}

/** Signs in to the console at `path` with the admin token, as an operator does, and waits until signed in. */
export async function signIn(page: Page, stack: Pick<LocalProcess, "url" | "adminToken">, path = "/console") {
  await page.goto(`${stack.url}${path}`);
  await page.getByLabel("Admin token").fill(stack.adminToken);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

/** Resolves once the page's first load has finished: #page is aria-busy until then. */
export const loaded = (page: Page) => page.locator("#page:not([aria-busy])").waitFor({ state: "attached" });

/** A JSON request to the running stack, as the admin unless another token is given: how a browser test sets up and checks. */
export const stackRequest =
  (stack: () => Pick<LocalProcess, "url" | "adminToken">) =>
  async <T = any>(method: string, path: string, body?: unknown, token?: string) => {
    const { url, adminToken } = stack();
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token ?? adminToken}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  };
