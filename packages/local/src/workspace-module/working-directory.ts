import { stat } from "node:fs/promises";
import { confine } from "./confine";
import type { Workspace } from "./confine";
import { fileError } from "./file-errors";

/** A command's working directory (`cwd`, relative to the root), confined like any path: its real path. */
export async function workingDirectory(workspace: Workspace, { cwd }: { cwd: string }) {
  const dir = await confine(workspace, cwd);
  const info = await stat(dir).catch((error) => {
    throw fileError(cwd, error);
  });
  if (!info.isDirectory()) throw new Error(`The working directory ${JSON.stringify(cwd)} is not a directory.`);
  return { path: dir };
}
