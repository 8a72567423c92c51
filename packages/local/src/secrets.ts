import { randomBytes, randomInt } from "node:crypto";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** An AWS access key pair, in the shape the SDK's `credentials` take. */
export type AccessKeyPair = { accessKeyId: string; secretAccessKey: string };
export type SecretSource = "environment" | "file" | "generated" | "ephemeral";
export type LocalSecret = { value: string; source: SecretSource };
export type LocalAwsCredentials = AccessKeyPair & { source: SecretSource; file: string | undefined };

export const AWS_CREDENTIALS_FILE = "local-aws-credentials.json";

const generate = () => randomBytes(32).toString("base64url");

/** Creates the data dir readable by its owner only; one that exists keeps its mode. */
const ensureDataDir = (dataDir: string) => mkdir(dataDir, { recursive: true, mode: 0o700 });

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    return undefined;
  }
}

async function saveSecret(dataDir: string, file: string, text: string) {
  const path = join(dataDir, file);
  await ensureDataDir(dataDir);
  await writeFile(path, text, { mode: 0o600 });
  await chmod(path, 0o600);
}

/**
 * A secret from the environment, else from `<dataDir>/<file>`, else generated and saved there (mode 600).
 * Without a data dir (in-memory mode) a generated secret lives only as long as the process.
 */
export async function localSecret(file: string, fromEnv: string | undefined, dataDir: string | undefined): Promise<LocalSecret> {
  if (fromEnv) return { value: fromEnv, source: "environment" };
  if (!dataDir) return { value: generate(), source: "ephemeral" };
  const saved = (await readIfPresent(join(dataDir, file)))?.trim();
  if (saved) return { value: saved, source: "file" };
  const value = generate();
  await saveSecret(dataDir, file, `${value}\n`);
  return { value, source: "generated" };
}

const KEY_ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** An access key pair shaped like AWS's: `AKIA` and 16 capitals or digits (DynamoDB Local takes only letters and digits), a 40-character secret. */
export function generateAccessKeyPair(): AccessKeyPair {
  const suffix = Array.from({ length: 16 }, () => KEY_ID_ALPHABET[randomInt(KEY_ID_ALPHABET.length)]).join("");
  return { accessKeyId: `AKIA${suffix}`, secretAccessKey: randomBytes(30).toString("base64") };
}

/** DynamoDB Local names a key's database file after its id, and refuses an id that is not letters and digits. */
const VALID_KEY_ID = /^[A-Za-z0-9]{1,128}$/;
const VALID_SECRET = /^\S{1,128}$/;

function checked(pair: Partial<AccessKeyPair>, from: string): AccessKeyPair {
  const { accessKeyId, secretAccessKey } = pair;
  if (typeof accessKeyId !== "string" || !VALID_KEY_ID.test(accessKeyId)) {
    throw new Error(`${from}: the access key id must be 1 to 128 letters and digits (DynamoDB Local takes no other), e.g. AKIA and 16 capitals or digits.`);
  }
  if (typeof secretAccessKey !== "string" || !VALID_SECRET.test(secretAccessKey)) {
    throw new Error(`${from}: the secret access key must be 1 to 128 characters without spaces.`);
  }
  return { accessKeyId, secretAccessKey };
}

/**
 * The key pair that signs requests to the local AWS endpoints (DynamoDB Local, /eventbridge): from the environment
 * (both variables), else `<dataDir>/local-aws-credentials.json`, else generated and saved there (mode 600); without a
 * data dir, generated for this run.
 */
export async function localAwsCredentials(fromEnv: Partial<AccessKeyPair>, dataDir: string | undefined): Promise<LocalAwsCredentials> {
  if (fromEnv.accessKeyId || fromEnv.secretAccessKey) {
    if (!fromEnv.accessKeyId || !fromEnv.secretAccessKey) {
      throw new Error("Set both TOOLGATE_LOCAL_AWS_ACCESS_KEY_ID and TOOLGATE_LOCAL_AWS_SECRET_ACCESS_KEY, or neither.");
    }
    return { ...checked(fromEnv, "TOOLGATE_LOCAL_AWS_ACCESS_KEY_ID"), source: "environment", file: undefined };
  }
  if (!dataDir) return { ...generateAccessKeyPair(), source: "ephemeral", file: undefined };
  const file = join(dataDir, AWS_CREDENTIALS_FILE);
  const saved = await readIfPresent(file);
  if (saved !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(saved);
    } catch {
      parsed = undefined;
    }
    if (typeof parsed !== "object" || parsed === null) {
      throw new Error(`${file} should be JSON: { "accessKeyId": …, "secretAccessKey": … }. Fix it: toolgate's data is kept under that access key id.`);
    }
    return { ...checked(parsed as Partial<AccessKeyPair>, file), source: "file", file };
  }
  const pair = generateAccessKeyPair();
  await saveSecret(dataDir, AWS_CREDENTIALS_FILE, `${JSON.stringify(pair, null, 2)}\n`);
  return { ...pair, source: "generated", file };
}
