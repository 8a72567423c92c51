import type { Workspace } from "./confine";
import { walk } from "./walk";
import type { EntryType } from "./walk";

/** The most entries counted for the summary; past it the counts are marked incomplete. */
export const MAX_COUNTED = 100_000;
const MAX_TOP_LEVEL = 100;

export async function workspaceInfo(workspace: Workspace, _input: Record<string, never>, signal: AbortSignal) {
  const counts: Record<EntryType, number> = { file: 0, directory: 0, symlink: 0, other: 0 };
  const topLevel: Array<{ path: string; type: EntryType }> = [];
  let totalBytes = 0;
  let counted = 0;
  let complete = true;
  for await (const entry of walk(workspace.root, { recursive: true, signal })) {
    if (counted === MAX_COUNTED) {
      complete = false;
      break;
    }
    counted++;
    counts[entry.type]++;
    if (entry.type === "file") totalBytes += entry.info.size;
    if (!entry.relative.includes("/") && topLevel.length < MAX_TOP_LEVEL) topLevel.push({ path: entry.relative, type: entry.type });
  }
  return {
    root: workspace.root,
    files: counts.file,
    directories: counts.directory,
    symlinks: counts.symlink,
    totalBytes,
    complete,
    topLevel,
    platform: process.platform,
    shell: "/bin/sh",
  };
}
