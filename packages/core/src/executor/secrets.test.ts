import { expect, test } from "vitest";
import { McpExecutor } from "./schema";
import { defaultSecrets, environmentSecrets, linkedSecrets, refuseLiteralSecrets, resolveHeaders } from "./secrets";

test("environmentSecrets - a secret named GITHUB_TOKEN is read from TOOLGATE_SECRET_GITHUB_TOKEN", async () => {
  const secrets = environmentSecrets({ TOOLGATE_SECRET_GITHUB_TOKEN: "ghp_x", GITHUB_TOKEN: "other" });
  expect(await secrets.read("GITHUB_TOKEN")).toBe("ghp_x");
  expect(await secrets.read("MISSING")).toBeUndefined();
  expect(await environmentSecrets({ TOOLGATE_SECRET_EMPTY: "" }).read("EMPTY")).toBeUndefined();
});

test("resolveHeaders - literals stay, references become prefix and value, and the values are handed back for scrubbing", async () => {
  const secrets = environmentSecrets({ TOOLGATE_SECRET_GITHUB_TOKEN: "ghp_secret" });
  const resolved = await resolveHeaders({ "X-Org": "acme", Authorization: { secret: "GITHUB_TOKEN", prefix: "Bearer " } }, secrets, "https://api.example.com");
  expect(resolved).toEqual({ headers: { "X-Org": "acme", Authorization: "Bearer ghp_secret" }, secrets: ["ghp_secret"] });
});

test("resolveHeaders - a missing secret is 502 executor_failed naming the secret and its variable", async () => {
  const failure = resolveHeaders({ Authorization: { secret: "GITHUB_TOKEN" } }, environmentSecrets({}), "https://api.example.com");
  await expect(failure).rejects.toMatchObject({ status: 502, code: "executor_failed", details: { secret: "GITHUB_TOKEN" } });
  await expect(failure).rejects.toThrow(/TOOLGATE_SECRET_GITHUB_TOKEN/);
});

test("refuseLiteralSecrets - a secret-looking header given as a literal is refused, a reference or a plain header is not", () => {
  expect(() => refuseLiteralSecrets({ Authorization: "Bearer ghp_x" })).toThrow(expect.objectContaining({ status: 400, code: "invalid_group_def" }));
  expect(() => refuseLiteralSecrets({ "X-Api-Key": "k" })).toThrow(/must name a secret/);
  expect(() => refuseLiteralSecrets({ Authorization: { secret: "GITHUB_TOKEN" }, "X-GitHub-Api-Version": "2022-11-28" })).not.toThrow();
});

test("McpExecutor - validates its URL, header names, secret names and prefix, and refuses headers the transport sets", () => {
  const executor = (extra: Record<string, unknown>) => McpExecutor.safeParse({ type: "mcp", url: "https://api.githubcopilot.com/mcp/", ...extra });
  expect(executor({ headers: { Authorization: { secret: "GITHUB_TOKEN" } }, toolPrefix: "gh", timeoutMs: 10_000 }).success).toBe(true);
  expect(executor({ url: "ftp://x.example.com" }).success).toBe(false);
  expect(executor({ headers: { "Bad Header": "x" } }).success).toBe(false);
  expect(executor({ headers: { Authorization: { secret: "not-a-name" } } }).success).toBe(false);
  expect(executor({ headers: { "Mcp-Session-Id": "x" } }).success).toBe(false);
  expect(executor({ headers: { "X-Evil": "a\r\nb" } }).success).toBe(false);
  expect(executor({ toolPrefix: "g h" }).success).toBe(false);
  expect(executor({ unknown: 1 }).success).toBe(false);
});

test("linkedSecrets - reads an SST secret linked to the function, only under a name TOOLGATE_MODULE_SECRETS lists, never toolgate's own", async () => {
  const linked = { SST_RESOURCE_App: { name: "toolgate", stage: "test" }, SST_RESOURCE_GithubToken: { value: "ghp_linked", type: "sst.sst.Secret" }, SST_RESOURCE_AdminToken: { value: "admin-secret", type: "sst.sst.Secret" } };
  for (const [name, value] of Object.entries(linked)) process.env[name] = JSON.stringify(value);
  try {
    const source = linkedSecrets({ TOOLGATE_MODULE_SECRETS: "GithubToken, AdminToken2" });
    expect(await source.read("GithubToken")).toBe("ghp_linked");
    expect(await source.read("AdminToken")).toBeUndefined();
    expect(await source.read("AdminToken2")).toBeUndefined();
    expect(await linkedSecrets({}).read("GithubToken")).toBeUndefined();
    const both = defaultSecrets({ TOOLGATE_MODULE_SECRETS: "GithubToken", TOOLGATE_SECRET_GithubToken: "from-env" });
    expect(await both.read("GithubToken")).toBe("from-env");
    expect(await defaultSecrets({ TOOLGATE_MODULE_SECRETS: "GithubToken" }).read("GithubToken")).toBe("ghp_linked");
  } finally {
    for (const name of Object.keys(linked)) delete process.env[name];
  }
});
