import { posix } from "node:path";

export const MAX_ROOT_LENGTH = 4096;

export function workspaceRootProblem(root: string): string | null {
  if (root.includes("\0")) return "The workspace root contains a NUL character, which no file system path may hold.";
  if (root.length > MAX_ROOT_LENGTH) return `The workspace root is ${root.length} characters long; at most ${MAX_ROOT_LENGTH} are allowed.`;
  if (!root.startsWith("/")) return `The workspace root ${JSON.stringify(root)} is not an absolute path; it must start with "/".`;
  return null;
}

/** The root with `.`, `..`, repeated and trailing slashes resolved; `/` stays `/`. */
export const normaliseRoot = (root: string) => withoutTrailingSlash(posix.normalize(root));

/** Whether an absolute path lies in the root or is the root itself, compared after both are normalised. */
export function isWithin(root: string, path: string): boolean {
  if (!path.startsWith("/")) return false;
  return contains(normaliseRoot(root), normaliseRoot(path));
}

/**
 * The normalised path an argument names, and whether it leaves the workspace root (never, without a root).
 * POSIX string work only: nothing reads the file system, so a symbolic link inside the workspace that points
 * outside it is not seen. `~` stays a prefix, as the home directory is unknown, and is never in the workspace.
 */
export function resolvePath(value: string, root: string | null): { path: string; outsideWorkspace: boolean } {
  return resolvePathFrom(value, root, root);
}

/** The same, a relative path read from `base` (a command's working directory) rather than from the root. */
export function resolvePathFrom(value: string, base: string | null, root: string | null): { path: string; outsideWorkspace: boolean } {
  if (value.startsWith("~")) return { path: fromHome(value), outsideWorkspace: root !== null };
  if (value.startsWith("/")) return located(normaliseRoot(value), root);
  if (base === null) return { path: normaliseRelative(value), outsideWorkspace: false };
  return located(withoutTrailingSlash(posix.join(base, value)), root);
}

const located = (path: string, root: string | null) => ({
  path,
  outsideWorkspace: root !== null && !contains(normaliseRoot(root), path),
});

const contains = (root: string, path: string) => root === "/" || path === root || path.startsWith(`${root}/`);

const withoutTrailingSlash = (path: string) => (path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path);

const normaliseRelative = (path: string) => withoutTrailingSlash(posix.normalize(path));

/** `~`, `~/rest` or `~user/rest`: the tilde part kept, the rest normalised as a path relative to that home. */
function fromHome(value: string): string {
  const slash = value.indexOf("/");
  if (slash === -1) return value;
  const rest = normaliseRelative(value.slice(slash + 1).replace(/^\/+/, ""));
  return rest === "." ? value.slice(0, slash) : `${value.slice(0, slash)}/${rest}`;
}
