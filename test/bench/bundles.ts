// `tsx test/bench/bundles.ts`: the Lambda bundles as SST builds them, their sizes and their module init time.
import { execFile } from "node:child_process";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import type { BuildOptions, Metafile } from "esbuild";
import { FUNCTION_DEFAULTS } from "../../infra/defaults";
import { percentile } from "./support";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The functions' handlers (infra/api.ts, infra/bus.ts, infra/cron.ts name them `<file>.handler`). */
export const HANDLERS = {
  groups: "packages/functions/src/api/groups.ts",
  roles: "packages/functions/src/api/roles.ts",
  execution: "packages/functions/src/api/execution.ts",
  modules: "packages/functions/src/event/modules.ts",
  cleanup: "packages/functions/src/cron/cleanup.ts",
} as const;
type HandlerName = keyof typeof HANDLERS;

// How SST builds a Node function for deployment: esbuild.BuildOptions in Runtime.Build, pkg/runtime/node/build.go of
// github.com/sst/sst (the CLI), given the function's `nodejs` properties from .sst/platform/src/components/aws/function.ts
// (format "esm" by default; minify, sourcemap and splitting only when set: infra/defaults.ts sets minify).
const SST_FORCE_EXTERNAL = ["sharp", "pg-native"];
const SST_ESM_BANNER = [
  `import { createRequire as topLevelCreateRequire } from 'module';`,
  `const require = topLevelCreateRequire(import.meta.url);`,
  `import { fileURLToPath as topLevelFileUrlToPath, URL as topLevelURL } from "url"`,
  `const __filename = topLevelFileUrlToPath(import.meta.url)`,
  `const __dirname = topLevelFileUrlToPath(new topLevelURL(".", import.meta.url))`,
  "", // the function's nodejs.banner: none
].join("\n");

export const sstBuildOptions = (entry: string, outfile: string, minify = false): BuildOptions => ({
  entryPoints: [entry],
  platform: "node",
  external: SST_FORCE_EXTERNAL,
  keepNames: true,
  bundle: true,
  splitting: false,
  metafile: true,
  outfile,
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

const INIT_RUNS = 5;
const TOP_INPUTS = 8;
const AFTER_IMPORT_WAIT_MS = 50;

/** The Resource links the handlers read (as packages/local/src/stack.ts sets them); no DynamoDB endpoint: AWS's. */
const LAMBDA_ENV = {
  AWS_REGION: "us-east-1",
  SST_RESOURCE_App: JSON.stringify({ name: "toolgate", stage: "bench" }),
  SST_RESOURCE_Table: JSON.stringify({ name: "toolgate", type: "sst.aws.Dynamo" }),
  SST_RESOURCE_AdminToken: JSON.stringify({ value: "bench-admin-token-0123456789", type: "sst.sst.Secret" }),
  SST_RESOURCE_SigningKey: JSON.stringify({ value: "bench-signing-key-0123456789-0123456789", type: "sst.sst.Secret" }),
};

/** Runs in a fresh `node`: times `await import(bundle)` alone, and counts sockets opened during and just after it. */
const INIT_PROBE = `
import { performance } from "node:perf_hooks";
import net from "node:net";
let connects = 0;
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) { connects++; return connect.apply(this, args); };
const started = performance.now();
const module = await import(process.env.BENCH_BUNDLE_URL);
const ms = performance.now() - started;
await new Promise((done) => setTimeout(done, ${AFTER_IMPORT_WAIT_MS}));
process.stdout.write(JSON.stringify({ ms, connects, handler: typeof module.handler }));
`;

type Printer = { out: (name: string, value: string | number) => void; note: (text: string) => void };
type Bundle = { name: HandlerName; file: string; bytes: number; metafile: Metafile };

async function initMs(bundle: Bundle): Promise<number> {
  const samples: number[] = [];
  for (let run = 0; run < INIT_RUNS; run++) {
    const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", INIT_PROBE], {
      env: { ...LAMBDA_ENV, BENCH_BUNDLE_URL: pathToFileURL(bundle.file).href },
    });
    const probe = JSON.parse(stdout) as { ms: number; connects: number; handler: string };
    if (probe.handler !== "function") throw new Error(`the ${bundle.name} bundle exports no handler function`);
    if (probe.connects > 0) throw new Error(`the ${bundle.name} bundle opened ${probe.connects} connection(s) at import`);
    samples.push(probe.ms);
  }
  return percentile(samples, 50);
}

const kib = (bytes: number) => (bytes / 1024).toFixed(0);

/** node_modules/<package>/… (scoped too), or the workspace file itself. */
const packageOf = (input: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? input.replace(/^.*?packages\//, "packages/");

function largestInputs(bundle: Bundle): { files: string; packages: string } {
  const inputs = Object.entries(Object.values(bundle.metafile.outputs)[0]!.inputs).map(([path, { bytesInOutput }]) => ({ path, bytes: bytesInOutput }));
  const byPackage = new Map<string, number>();
  for (const { path, bytes } of inputs) byPackage.set(packageOf(path), (byPackage.get(packageOf(path)) ?? 0) + bytes);
  const top = (entries: Array<[string, number]>) =>
    entries
      .sort(([, a], [, b]) => b - a)
      .slice(0, TOP_INPUTS)
      .map(([name, bytes]) => `${name.replace(/^.*node_modules\//, "")} ${kib(bytes)} KiB`)
      .join(", ");
  return { files: top(inputs.map(({ path, bytes }) => [path, bytes])), packages: top([...byPackage]) };
}

/** Bundles every handler as SST does, prints bundle_kib_<handler> and init_ms_<handler>, and what fills the largest. */
export async function benchBundles({ out, note }: Printer): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "toolgate-bundles-"));
  try {
    const bundles: Bundle[] = [];
    for (const [name, source] of Object.entries(HANDLERS) as Array<[HandlerName, string]>) {
      const entry = join(ROOT, source);
      const file = join(dir, `${name}.mjs`);
      const { metafile } = await build(sstBuildOptions(entry, file, FUNCTION_DEFAULTS.nodejs.minify));
      bundles.push({ name, file, bytes: (await stat(file)).size, metafile: metafile! });
    }
    for (const bundle of bundles) out(`bundle_kib_${bundle.name}`, kib(bundle.bytes));
    for (const bundle of bundles) out(`init_ms_${bundle.name}`, (await initMs(bundle)).toFixed(1));
    note(`bundles as SST builds them with infra/defaults.ts (esm, esnext, node, minify ${FUNCTION_DEFAULTS.nodejs.minify})`);
    note(`init_ms: median of ${INIT_RUNS} fresh node ${process.version} processes, await import(bundle) alone, no socket opened`);
    const largest = bundles.reduce((a, b) => (b.bytes > a.bytes ? b : a));
    const inputs = largestInputs(largest);
    note(`largest bundle ${largest.name}: biggest inputs ${inputs.files}`);
    note(`largest bundle ${largest.name}: by package ${inputs.packages}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await benchBundles({ out: (name, value) => console.log(`${name}=${value}`), note: (text) => console.error(`# ${text}`) });
}
