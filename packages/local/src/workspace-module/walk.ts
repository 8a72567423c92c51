import type { Stats } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

export type EntryType = "file" | "directory" | "symlink" | "other";
export type Entry = { full: string; relative: string; type: EntryType; info: Stats };

const typeOf = (info: Stats): EntryType => (info.isFile() ? "file" : info.isDirectory() ? "directory" : info.isSymbolicLink() ? "symlink" : "other");

/**
 * The entries under a directory, by name, depth first, each with its path relative to the directory walked. A
 * symbolic link is an entry of its own and never followed, so a walk stays inside the tree it started in; a
 * subdirectory that cannot be read is passed over.
 */
export async function* walk(dir: string, options: { recursive: boolean; signal: AbortSignal }, prefix = ""): AsyncGenerator<Entry> {
  const names = (await readdir(dir)).sort();
  for (const name of names) {
    options.signal.throwIfAborted();
    const full = join(dir, name);
    const info = await lstat(full).catch(() => undefined);
    if (!info) continue;
    const relative = prefix ? `${prefix}/${name}` : name;
    const entry: Entry = { full, relative, type: typeOf(info), info };
    yield entry;
    if (options.recursive && entry.type === "directory") {
      try {
        yield* walk(full, options, relative);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "EACCES" && code !== "EPERM" && code !== "ENOENT") throw error;
      }
    }
  }
}
