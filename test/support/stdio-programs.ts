import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { build } from "esbuild";

const ROOT = resolve(import.meta.dirname, "../..");

/** The repository's node_modules, where @modelcontextprotocol/server-everything is installed (a devDependency). */
const NODE_MODULES = join(ROOT, "node_modules");

/** server-everything as a stdio group's executor: node runs its entry file, with node_modules shown read-only as its cwd. */
export const everythingExecutor = (extra: Record<string, unknown> = {}) => ({
  type: "stdio",
  command: "node",
  args: ["@modelcontextprotocol/server-everything/dist/index.js", "stdio"],
  cwd: NODE_MODULES,
  ...extra,
});

/** test/support/stdio-server.ts bundled into one ES module file in `dir` (the sandbox shows neither the repository nor its node_modules). */
export async function bundleStdioServer(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  await build({
    entryPoints: { "stdio-server": join(ROOT, "test/support/stdio-server.ts") },
    outdir: dir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    logLevel: "silent",
  });
  return dir;
}

/** The test server as a stdio group's executor, started with `mode` (serve, exit-at-once, garbage). */
export const testServerExecutor = (dir: string, mode = "serve", extra: Record<string, unknown> = {}) => ({
  type: "stdio",
  command: "node",
  args: ["stdio-server.mjs", mode],
  cwd: dir,
  ...extra,
});
