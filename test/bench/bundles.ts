// `tsx test/bench/bundles.ts`: the Lambda bundles as SST builds them, their sizes and their module init time.
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { FUNCTION_DEFAULTS } from "../../infra/defaults";
import { buildHandler, HANDLERS, loadedAtInit } from "../support/lambda-build";
import type { Bundle, HandlerName } from "../support/lambda-build";
import { percentile } from "./support";

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
  const entry = Object.keys(bundle.metafile.outputs).find((output) => basename(output) === basename(bundle.file))!;
  const inputs = loadedAtInit(bundle.metafile, entry).flatMap((output) =>
    Object.entries(bundle.metafile.outputs[output]!.inputs).map(([path, { bytesInOutput }]) => ({ path, bytes: bytesInOutput })),
  );
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

/** Bundles every handler as SST does, prints bundle_kib_<handler>, bundle_init_kib_<handler> and init_ms_<handler>, and what fills the largest. */
export async function benchBundles({ out, note }: Printer): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "toolgate-bundles-"));
  try {
    const bundles: Bundle[] = [];
    for (const name of Object.keys(HANDLERS) as HandlerName[]) bundles.push(await buildHandler(name, dir));
    for (const bundle of bundles) out(`bundle_kib_${bundle.name}`, kib(bundle.bytes));
    for (const bundle of bundles) out(`bundle_init_kib_${bundle.name}`, kib(bundle.initBytes));
    for (const bundle of bundles) out(`init_ms_${bundle.name}`, (await initMs(bundle)).toFixed(1));
    note(`bundles as SST builds them with infra/defaults.ts (esm, esnext, node, minify ${FUNCTION_DEFAULTS.nodejs.minify}, splitting ${FUNCTION_DEFAULTS.nodejs.splitting}); bundle_kib: all files shipped, bundle_init_kib: the handler and the chunks it imports statically`);
    note(`init_ms: median of ${INIT_RUNS} fresh node ${process.version} processes, await import(bundle) alone, no socket opened`);
    const largest = bundles.reduce((a, b) => (b.initBytes > a.initBytes ? b : a));
    const inputs = largestInputs(largest);
    note(`largest at init ${largest.name}: biggest inputs ${inputs.files}`);
    note(`largest at init ${largest.name}: by package ${inputs.packages}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await benchBundles({ out: (name, value) => console.log(`${name}=${value}`), note: (text) => console.error(`# ${text}`) });
}
