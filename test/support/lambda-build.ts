// The functions as SST builds them for deployment: the bench measures these files and test/infra/lambda.test.ts runs them.
import { mkdir, stat, symlink } from "node:fs/promises";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { BuildOptions, Metafile } from "esbuild";
import { FUNCTION_DEFAULTS } from "../../infra/defaults";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The functions' handlers (infra/api.ts, infra/bus.ts, infra/cron.ts name them `<file>.handler`). */
export const HANDLERS = {
  groups: "packages/functions/src/api/groups.ts",
  roles: "packages/functions/src/api/roles.ts",
  execution: "packages/functions/src/api/execution.ts",
  modules: "packages/functions/src/event/modules.ts",
  cleanup: "packages/functions/src/cron/cleanup.ts",
} as const;
export type HandlerName = keyof typeof HANDLERS;

// How SST builds a Node function for deployment: esbuild.BuildOptions in Runtime.Build, pkg/runtime/node/build.go of
// github.com/sst/sst (the CLI), given the function's `nodejs` properties from .sst/platform/src/components/aws/function.ts
// (format "esm" by default; minify, sourcemap and splitting only when set: infra/defaults.ts sets minify and splitting;
// with splitting the handler and its chunks go to the handler's folder as .mjs files).
const SST_FORCE_EXTERNAL = ["sharp", "pg-native"];
const SST_ESM_BANNER = [
  `import { createRequire as topLevelCreateRequire } from 'module';`,
  `const require = topLevelCreateRequire(import.meta.url);`,
  `import { fileURLToPath as topLevelFileUrlToPath, URL as topLevelURL } from "url"`,
  `const __filename = topLevelFileUrlToPath(import.meta.url)`,
  `const __dirname = topLevelFileUrlToPath(new topLevelURL(".", import.meta.url))`,
  "", // the function's nodejs.banner: none
].join("\n");

type SstNodejs = { minify?: boolean; splitting?: boolean; install?: readonly string[] };

export const sstBuildOptions = (entry: string, outfile: string, { minify = false, splitting = false, install = [] }: SstNodejs = {}): BuildOptions => ({
  entryPoints: [entry],
  platform: "node",
  external: [...SST_FORCE_EXTERNAL, ...install],
  keepNames: true,
  bundle: true,
  splitting,
  metafile: true,
  ...(splitting ? { outdir: dirname(outfile), outExtension: { ".js": ".mjs" } } : { outfile }),
  sourcemap: false,
  write: true,
  format: "esm",
  target: "esnext",
  mainFields: ["module", "main"],
  banner: { js: SST_ESM_BANNER },
  minifyWhitespace: minify,
  minifySyntax: minify,
  minifyIdentifiers: minify,
  logLevel: "error",
});

/** `file` is the handler's entry; `bytes` all that ships (entry and chunks), `initBytes` what loads at init (the entry and its static imports). */
export type Bundle<Name extends string = HandlerName> = { name: Name; file: string; bytes: number; initBytes: number; metafile: Metafile };

/** The entry's output and every chunk it imports statically, as the metafile names them. */
export function loadedAtInit(metafile: Metafile, entryOutput: string): string[] {
  const loaded = new Set<string>();
  const visit = (output: string) => {
    if (loaded.has(output)) return;
    loaded.add(output);
    for (const { path, kind } of metafile.outputs[output]!.imports) if (kind === "import-statement" && path in metafile.outputs) visit(path);
  };
  visit(entryOutput);
  return [...loaded];
}

/** SST installs `nodejs.install` packages into the function's node_modules; here they are linked from the project's. */
async function installBeside(folder: string, packages: readonly string[]) {
  for (const name of packages) {
    const target = join(folder, "node_modules", name);
    await mkdir(dirname(target), { recursive: true });
    await symlink(join(ROOT, "node_modules", name), target, "dir");
  }
}

/** Builds one handler into `<dir>/<name>/` with infra/defaults.ts, as `sst deploy` does. */
export const buildHandler = (name: HandlerName, dir: string): Promise<Bundle> => buildFunction(name, HANDLERS[name], dir, FUNCTION_DEFAULTS.nodejs);

/** Builds the function whose handler is in `entry` (from the repository's root) into `<dir>/<name>/`, as `sst deploy` does with these `nodejs` properties. */
export async function buildFunction<Name extends string>(name: Name, entry: string, dir: string, nodejs: SstNodejs = {}): Promise<Bundle<Name>> {
  const folder = join(dir, name);
  const file = join(folder, `${basename(entry, ".ts")}.mjs`);
  const { metafile } = await build({ ...sstBuildOptions(join(ROOT, entry), file, nodejs), absWorkingDir: ROOT });
  await installBeside(folder, nodejs.install ?? []);
  const sizes = await Promise.all(Object.keys(metafile!.outputs).map(async (output) => [output, (await stat(join(ROOT, output))).size] as const));
  const size = new Map(sizes);
  const initBytes = loadedAtInit(metafile!, relative(ROOT, file)).reduce((sum, output) => sum + size.get(output)!, 0);
  return { name, file, bytes: sizes.reduce((sum, [, bytes]) => sum + bytes, 0), initBytes, metafile: metafile! };
}

