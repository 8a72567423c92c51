// The console's browser script (bundled from packages/functions/src/console/client) and the API document are built
// into generated modules that are not in git (packages/functions/src/build.ts). They must exist before SST bundles
// the functions that serve them, so deploys build them first.
// (The module's name is a variable so that neither tsc, without Node's types here, nor SST's bundler follows it.)
const childProcess: string = "node:child_process";
const { execFileSync } = await import(childProcess);
execFileSync("npm", ["run", "--silent", "build"], { stdio: "inherit" });

export {};
