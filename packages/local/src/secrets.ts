import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

export type LocalSecret = { value: string; source: "environment" | "file" | "generated" | "ephemeral" };

const generate = () => randomBytes(32).toString("base64url");

/**
 * A secret from the environment, else from `<dataDir>/<file>`, else generated and saved there (mode 600).
 * Without a data dir (in-memory mode) a generated secret lives only as long as the process.
 */
export async function localSecret(file: string, fromEnv: string | undefined, dataDir: string | undefined): Promise<LocalSecret> {
  if (fromEnv) return { value: fromEnv, source: "environment" };
  if (!dataDir) return { value: generate(), source: "ephemeral" };
  const path = join(dataDir, file);
  try {
    const saved = (await readFile(path, "utf8")).trim();
    if (saved) return { value: saved, source: "file" };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const value = generate();
  await mkdir(dataDir, { recursive: true });
  await writeFile(path, `${value}\n`, { mode: 0o600 });
  await chmod(path, 0o600);
  return { value, source: "generated" };
}
