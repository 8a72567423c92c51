import { Resource } from "sst";
import { isSecretKey } from "../call/redact";
import { groupError } from "../group/errors";
import { executorError } from "./errors";
import type { ExecutorHeaders, SecretRef } from "./schema";

/** Where named secrets come from when a call is made. Their values are never stored, returned or logged. */
export type SecretSource = { read(name: string): Promise<string | undefined> };

export const SECRET_ENV_PREFIX = "TOOLGATE_SECRET_";

/**
 * Secrets from the environment: `{ secret: "GITHUB_TOKEN" }` reads TOOLGATE_SECRET_GITHUB_TOKEN. On AWS the variable is
 * set on the functions from an SST secret (see the README); any other store fits behind SecretSource.
 */
export const environmentSecrets = (env: NodeJS.ProcessEnv = process.env): SecretSource => ({
  read: async (name) => env[`${SECRET_ENV_PREFIX}${name}`] || undefined,
});

/** The names infra links as SST secrets for modules (TOOLGATE_MODULE_SECRETS, comma-separated): only these may be read. */
export const MODULE_SECRETS_ENV = "TOOLGATE_MODULE_SECRETS";

const namesIn = (value: string | undefined) => new Set((value ?? "").split(",").map((name) => name.trim()).filter(Boolean));

/**
 * Secrets linked to the function as SST secrets (`Resource.<Name>.value`), limited to the names infra lists in
 * TOOLGATE_MODULE_SECRETS, so a header can never name toolgate's own secrets (AdminToken, SigningKey).
 */
export function linkedSecrets(env: NodeJS.ProcessEnv = process.env): SecretSource {
  const allowed = namesIn(env[MODULE_SECRETS_ENV]);
  return {
    read: async (name) => {
      if (!allowed.has(name)) return undefined;
      try {
        const linked = (Resource as unknown as Record<string, { value?: unknown } | undefined>)[name];
        return typeof linked?.value === "string" && linked.value !== "" ? linked.value : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

/** The environment's TOOLGATE_SECRET_<NAME> first, then a linked SST secret of that name. */
export function defaultSecrets(env: NodeJS.ProcessEnv = process.env): SecretSource {
  const sources = [environmentSecrets(env), linkedSecrets(env)];
  return {
    read: async (name) => {
      for (const source of sources) {
        const value = await source.read(name);
        if (value !== undefined) return value;
      }
      return undefined;
    },
  };
}

export const missingSecret = (name: string, origin: string) =>
  executorError(
    "executor_failed",
    `The tool's executor at ${origin} needs the secret "${name}", which toolgate does not have (set ${SECRET_ENV_PREFIX}${name}, or link an SST secret "${name}" listed in ${MODULE_SECRETS_ENV}).`,
    { secret: name, recoverable: false },
  );

/**
 * The values, each secret reference replaced by its prefix and the secret's value, and the secret values themselves
 * (to cut out of anything the upstream sends back); a missing secret is a 502 naming it.
 */
export async function resolveSecrets(values: Record<string, string | SecretRef> | undefined, secrets: SecretSource, origin: string) {
  const revealed: string[] = [];
  const entries = await Promise.all(
    Object.entries(values ?? {}).map(async ([name, value]) => {
      if (typeof value === "string") return [name, value] as const;
      const secret = await secrets.read(value.secret);
      if (secret === undefined) throw missingSecret(value.secret, origin);
      revealed.push(secret);
      return [name, `${value.prefix ?? ""}${secret}`] as const;
    }),
  );
  return { values: Object.fromEntries(entries), secrets: revealed };
}

/** The headers to send, their secrets read (see resolveSecrets). */
export async function resolveHeaders(headers: ExecutorHeaders | undefined, secrets: SecretSource, origin: string) {
  const resolved = await resolveSecrets(headers, secrets, origin);
  return { headers: resolved.values, secrets: resolved.secrets };
}

/** A secret-looking header (Authorization, X-Api-Key, Cookie...) given as a literal would be stored: it must name a secret. */
export function refuseLiteralSecrets(headers: ExecutorHeaders | undefined, path = "executor.headers", code: "invalid_group_def" | "invalid_executor" = "invalid_group_def") {
  const literal = Object.entries(headers ?? {}).filter(([name, value]) => typeof value === "string" && isSecretKey(name));
  if (literal.length === 0) return;
  throw groupError(
    code,
    `The header${literal.length > 1 ? "s" : ""} ${literal.map(([name]) => `"${name}"`).join(", ")} must name a secret, e.g. { "secret": "GITHUB_TOKEN" }, so its value is never stored.`,
    { details: literal.map(([name]) => ({ path: `${path}.${name}`, message: 'must be { "secret": "<NAME>" }, not a literal value' })) },
  );
}
