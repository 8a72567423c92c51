import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { generateAccessKeyPair, localAwsCredentials } from "./secrets";

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir() {
  const dir = await mkdtemp(join(tmpdir(), "toolgate-secrets-"));
  dirs.push(dir);
  return dir;
}

const mode = async (path: string) => (await stat(path)).mode & 0o777;

test("generateAccessKeyPair - an AKIA key id of letters and digits (DynamoDB Local takes no other) and a 40-character secret, new each time", () => {
  const pairs = Array.from({ length: 50 }, generateAccessKeyPair);

  for (const { accessKeyId, secretAccessKey } of pairs) {
    expect(accessKeyId).toMatch(/^AKIA[A-Z0-9]{16}$/);
    expect(secretAccessKey).toMatch(/^[A-Za-z0-9+/]{40}$/);
  }
  expect(new Set(pairs.map((pair) => pair.accessKeyId)).size).toBe(50);
});

test("localAwsCredentials - generated into <data dir>/local-aws-credentials.json (mode 600, the dir it creates 700), then read from it", async () => {
  const dataDir = join(await tempDir(), "data");

  const generated = await localAwsCredentials({}, dataDir);
  const file = join(dataDir, "local-aws-credentials.json");
  const again = await localAwsCredentials({}, dataDir);

  expect(generated).toMatchObject({ source: "generated", file });
  expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ accessKeyId: generated.accessKeyId, secretAccessKey: generated.secretAccessKey });
  expect(await mode(file)).toBe(0o600);
  expect(await mode(dataDir)).toBe(0o700);
  expect(again).toEqual({ ...generated, source: "file" });
});

test("localAwsCredentials - the environment's pair wins and nothing is written; in memory a pair lives for the run only", async () => {
  const dataDir = await tempDir();

  const fromEnv = await localAwsCredentials({ accessKeyId: "AKIAENVIRONMENT00001", secretAccessKey: "secret/from+env" }, dataDir);
  const ephemeral = await localAwsCredentials({}, undefined);

  expect(fromEnv).toEqual({ accessKeyId: "AKIAENVIRONMENT00001", secretAccessKey: "secret/from+env", source: "environment", file: undefined });
  expect(ephemeral).toMatchObject({ accessKeyId: expect.stringMatching(/^AKIA/), source: "ephemeral", file: undefined });
  expect(await readdir(dataDir)).toEqual([]);
});

test("localAwsCredentials - half a pair, a key id DynamoDB Local would refuse, or a broken file are refused with what to do", async () => {
  const dataDir = await tempDir();

  await expect(localAwsCredentials({ accessKeyId: "AKIAONLYTHEKEYID0001" }, dataDir)).rejects.toThrow(
    "Set both TOOLGATE_LOCAL_AWS_ACCESS_KEY_ID and TOOLGATE_LOCAL_AWS_SECRET_ACCESS_KEY, or neither.",
  );
  await expect(localAwsCredentials({ accessKeyId: "../../escape", secretAccessKey: "s" }, dataDir)).rejects.toThrow("letters and digits");
  await writeFile(join(dataDir, "local-aws-credentials.json"), "not json");
  await expect(localAwsCredentials({}, dataDir)).rejects.toThrow("should be JSON");
});
