import { build } from "esbuild";

/**
 * The sandbox's own programs, each bundled into one CommonJS file in `dir` (the sandbox holds neither toolgate's
 * repository nor its node_modules), named by the keys of `entries`.
 */
export async function bundlePrograms(entries: Record<string, string>, dir: string): Promise<void> {
  await build({
    entryPoints: entries,
    outdir: dir,
    outExtension: { ".js": ".cjs" },
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    logLevel: "silent",
  });
}
