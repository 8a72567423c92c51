export const adminToken = new sst.Secret("AdminToken");
export const signingKey = new sst.Secret("SigningKey");

/**
 * Secrets that MCP modules' headers may name ({ "secret": "GithubToken" }), listed at deploy time in
 * TOOLGATE_MODULE_SECRETS (comma-separated SST secret names); set each with `npx sst secret set <Name> <value>`.
 * They are linked to the functions that import and call modules, which read only the names listed here.
 */
export const MODULE_SECRET_NAMES = (process.env.TOOLGATE_MODULE_SECRETS ?? "")
  .split(",")
  .map((name) => name.trim())
  .filter(Boolean);
export const moduleSecrets = MODULE_SECRET_NAMES.map((name) => new sst.Secret(name));
export const moduleSecretsEnvironment: Record<string, string> = MODULE_SECRET_NAMES.length > 0 ? { TOOLGATE_MODULE_SECRETS: MODULE_SECRET_NAMES.join(",") } : {};
