import { stat } from "node:fs/promises";
import type * as z from "zod";
import type { BUILTIN } from "./builtin";
import { confine, relativeName } from "./confine";
import type { Workspace } from "./confine";
import { fileError } from "./file-errors";
import { globMatcher } from "./glob";
import { walk } from "./walk";
import type { EntryType } from "./walk";

/** The most entries one listing returns; past it the listing ends, marked truncated. */
export const MAX_LISTED = 1000;

type Listed = { path: string; type: EntryType; size: number; mtime: string };

export async function listFiles(workspace: Workspace, { path, recursive, pattern }: z.infer<typeof BUILTIN.listFiles.parameters>, signal: AbortSignal) {
  const real = await confine(workspace, path);
  const info = await stat(real).catch((error) => {
    throw fileError(path, error);
  });
  if (!info.isDirectory()) throw new Error(`${JSON.stringify(path)} is not a directory: read it with read_file.`);
  const matches = pattern === undefined ? () => true : globMatcher(pattern);
  const entries: Listed[] = [];
  let truncated = false;
  for await (const entry of walk(real, { recursive, signal })) {
    if (!matches(entry.relative)) continue;
    if (entries.length === MAX_LISTED) {
      truncated = true;
      break;
    }
    entries.push({
      path: relativeName(workspace, entry.full),
      type: entry.type,
      size: entry.type === "file" ? entry.info.size : 0,
      mtime: entry.info.mtime.toISOString(),
    });
  }
  return { path: relativeName(workspace, real), recursive, ...(pattern === undefined ? {} : { pattern }), entries, truncated };
}
