import { readlink, realpath, stat } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";

/** A path the module will not touch, with a sentence naming it and why; the call's error result. */
export class PathRefused extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`The workspace module refused the path ${JSON.stringify(path)}: ${reason}`);
  }
}

/** The directory the module serves: its real path (symbolic links resolved), which every path must stay inside. */
export type Workspace = { root: string };

/** More links than this between a path and its target is a loop, as the kernel's own limit (ELOOP) says. */
const MAX_LINK_HOPS = 40;
const LOOP = "its symbolic links lead round in a loop.";

export async function openWorkspace(root: string): Promise<Workspace> {
  const real = await realpath(resolve(root)).catch(() => {
    throw new Error(`The workspace root ${root} does not exist.`);
  });
  if (!(await stat(real)).isDirectory()) throw new Error(`The workspace root ${root} is not a directory.`);
  return { root: real };
}

/** Whether `path` is `root` or lies under it (both absolute and normalized, as real paths are). */
export const inside = (root: string, path: string) => path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);

/**
 * The real path of `path`, existing or not: its symbolic links followed, a dangling one to where it points, and the
 * part that does not exist yet joined to the real path of the nearest ancestor that does.
 */
async function realPathOf(path: string, hops = 0): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw new Error(LOOP);
    if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
  }
  const parent = dirname(path);
  const target = await readlink(path).catch(() => undefined);
  if (target !== undefined) {
    if (hops >= MAX_LINK_HOPS) throw new Error(LOOP);
    return realPathOf(resolve(await realPathOf(parent, hops + 1), target), hops + 1);
  }
  if (parent === path) return path;
  return join(await realPathOf(parent, hops), basename(path));
}

/**
 * Where an argument's path really leads, or PathRefused: resolved against the root, refused when it holds a NUL
 * byte, starts with `~`, or leads outside the root, by `..`, as an absolute path, or through a symbolic link (for a
 * file that does not exist yet, through its nearest existing ancestor, so a write through a linked directory is
 * refused too).
 */
export async function confine(workspace: Workspace, path: string): Promise<string> {
  if (path.includes("\0")) throw new PathRefused(path, "it contains a NUL byte, which no file path may hold.");
  if (path.startsWith("~")) throw new PathRefused(path, `"~" names a home directory, which is outside the workspace root ${workspace.root}. Give a path relative to the root.`);
  const named = resolve(workspace.root, path);
  if (!inside(workspace.root, named))
    throw new PathRefused(path, `it leads outside the workspace root ${workspace.root}. Give a path relative to the root, without "..".`);
  let real: string;
  try {
    real = await realPathOf(named);
  } catch (error) {
    throw new PathRefused(path, error instanceof Error ? error.message : String(error));
  }
  if (!inside(workspace.root, real))
    throw new PathRefused(path, `a symbolic link in it leads outside the workspace root ${workspace.root}.`);
  return real;
}

/** A real path inside the workspace as the agent names it: relative to the root, with forward slashes ("." for the root). */
export function relativeName(workspace: Workspace, real: string): string {
  const name = relative(workspace.root, real);
  if (name === "") return ".";
  return sep === "/" ? name : name.split(sep).join("/");
}
