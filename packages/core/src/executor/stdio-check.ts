import { isSecretKey } from "../call/redact";
import { groupError } from "../group/errors";
import type { Executor, StdioExecutor } from "./schema";
import { stdioHost } from "./stdio-host";

/** Values shaped like a credential: a known token's prefix, a private key, a JWT, an authorization value. */
const CREDENTIAL_SHAPES = [
  /\b(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/,
  /\bglpat-[A-Za-z0-9_-]{20,}/,
  /\bsk-[A-Za-z0-9_-]{20,}/,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/,
  /\b(AKIA|ASIA)[0-9A-Z]{16}\b/,
  /\bAIza[0-9A-Za-z_-]{35}\b/,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+/,
  /^(bearer|basic|token)\s+\S{8,}$/i,
];

const looksLikeCredential = (value: string) => CREDENTIAL_SHAPES.some((shape) => shape.test(value.trim()));

type Refusal = { path: string; message: string };

/** Where a secret would be stored with the group: a literal that looks like a credential, or a secret-named variable holding a literal. */
function literalSecrets(executor: StdioExecutor, path: string): Refusal[] {
  const literal = { message: 'must name a secret, e.g. { "secret": "GITHUB_TOKEN" }, so its value is never stored' };
  const inArguments = { message: "looks like a credential: a secret reaches the program only through env, as { \"secret\": \"<NAME>\" }" };
  return [
    ...(looksLikeCredential(executor.command) ? [{ path: `${path}.command`, ...inArguments }] : []),
    ...(executor.args ?? []).flatMap((arg, index) => (looksLikeCredential(arg) ? [{ path: `${path}.args.${index}`, ...inArguments }] : [])),
    ...Object.entries(executor.env ?? {}).flatMap(([name, value]) =>
      typeof value === "string" && (isSecretKey(name) || looksLikeCredential(value)) ? [{ path: `${path}.env.${name}`, ...literal }] : [],
    ),
  ];
}

/**
 * Refuses a stdio executor this process cannot run (no runtime lent it a sandbox: a deployment on AWS) or that would
 * store a secret (a literal credential in its command, arguments or environment). Checked before anything starts.
 */
export function refuseStdio(executor: Executor | undefined, path = "executor", code: "invalid_group_def" | "invalid_executor" = "invalid_group_def") {
  if (executor?.type !== "stdio") return;
  if (!stdioHost())
    throw groupError(
      code,
      "A stdio MCP server runs only where toolgate runs on one machine (npm start), which starts it in a sandbox; this deployment has no place to run a process beside it. " +
        "On AWS, package the server as a Lambda module: a handler made with stdioLambdaHandler (@toolgate/module/stdio-lambda), deployed with the ToolgateModule SST component (@toolgate/module/sst), which registers it as an { \"type\": \"mcp\" } group.",
      { details: [{ path: `${path}.type`, message: "a stdio server cannot run in this deployment" }] },
    );
  const details = literalSecrets(executor, path);
  if (details.length)
    throw groupError(code, `The stdio server's ${details.map((detail) => detail.path.slice(path.length + 1)).join(", ")} would keep a secret in the group: name it in env as { "secret": "<NAME>" }, read when the process starts and never stored.`, {
      details,
    });
}
