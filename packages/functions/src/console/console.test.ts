import { Hono } from "hono";
import { describe, expect, test } from "vitest";
import { CLIENT_SCRIPT } from "./app-script.js";
import { CONSOLE_SECURITY_HEADERS, mountConsole, rootFromPath } from "./mount";

const app = mountConsole(new Hono());
const get = (path: string) => app.request(path);

describe("console", () => {
  test("mountConsole - every page is the public shell with the security headers and no data", async () => {
    for (const path of ["/console", "/console/", "/console/groups", "/console/roles/rol_01ABC"]) {
      const response = await get(path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
      expect(response.headers.get("cache-control")).toBe("no-store");
      for (const [name, value] of Object.entries(CONSOLE_SECURITY_HEADERS)) expect(response.headers.get(name), name).toBe(value);
      const page = await response.text();
      expect(page).toMatch(/^<!doctype html>/);
      expect(page).toContain('<label for="admin-token">Admin token</label>');
      expect(page).not.toMatch(/<script>|\son[a-z]+=/i);
    }
  });

  test("mountConsole - each page says which page it is and where the API is, relative to its own URL", async () => {
    const role = await (await get("/console/roles/rol_01ABC")).text();
    expect(role).toContain('data-page="role"');
    expect(role).toContain('data-role-id="rol_01ABC"');
    expect(role).toContain('data-root="../../"');
    expect(role).toContain('src="../../console/app.js"');
    expect(await (await get("/console")).text()).toContain('href="./console/app.css"');
    expect(await (await get("/console/groups")).text()).toContain('data-page="groups"');
  });

  test("mountConsole - an unknown console path is a 404 page, and a role id is escaped", async () => {
    const missing = await get("/console/nothing/here");
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain("Page not found");
    const hostile = await (await get("/console/roles/%22%3E%3Cscript%3E")).text();
    expect(hostile).not.toContain('"><script>');
    expect(hostile).toContain('data-role-id="&quot;&gt;&lt;script&gt;"');
  });

  test("mountConsole - the script and styles are served with their types and the same headers", async () => {
    const script = await get("/console/app.js");
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(script.headers.get("x-content-type-options")).toBe("nosniff");
    expect(() => new Function(CLIENT_SCRIPT)).not.toThrow();
    expect(CLIENT_SCRIPT).not.toMatch(/innerHTML|insertAdjacentHTML|outerHTML|document\.write|eval\(/);
    const styles = await get("/console/app.css");
    expect(styles.headers.get("content-type")).toBe("text/css; charset=utf-8");
  });

  test("rootFromPath - climbs back to where /console is mounted", () => {
    expect(rootFromPath("/console")).toBe("./");
    expect(rootFromPath("/console/")).toBe("../");
    expect(rootFromPath("/console/groups")).toBe("../");
    expect(rootFromPath("/console/roles/rol_1")).toBe("../../");
  });
});
