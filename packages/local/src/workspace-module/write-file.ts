import { constants } from "node:fs";
import { mkdir, open } from "node:fs/promises";
import { dirname } from "node:path";
import type * as z from "zod";
import type { BUILTIN } from "./builtin";
import { confine, relativeName } from "./confine";
import type { Workspace } from "./confine";
import { fileError } from "./file-errors";

/** The file itself is opened without following a link, so a link put there after the path was checked is refused. */
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;

export async function writeFile(workspace: Workspace, { path, content }: z.infer<typeof BUILTIN.writeFile.parameters>) {
  const real = await confine(workspace, path);
  try {
    await mkdir(dirname(real), { recursive: true });
    const handle = await open(real, WRITE_FLAGS, 0o666);
    try {
      await handle.writeFile(content, "utf8");
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw fileError(path, error);
  }
  return { path: relativeName(workspace, real), bytesWritten: Buffer.byteLength(content, "utf8") };
}
