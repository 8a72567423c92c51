import picomatch from "picomatch";

/**
 * A glob as a test of a slash-separated path, by picomatch (`*`, `?`, `**`, `[abc]`, `[!abc]` with its POSIX
 * classes on, `{a,b}`). A pattern without a slash is matched against the last segment, the entry's name, as
 * `find -name` and .gitignore do, so `*.ts` finds TypeScript files at any depth. Names starting with a dot match.
 */
export function globMatcher(pattern: string): (path: string) => boolean {
  return picomatch(pattern, { dot: true, posix: true, basename: !pattern.includes("/") });
}
