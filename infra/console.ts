// The console's browser script is TypeScript (packages/functions/src/console/client); build.ts bundles it into a
// generated module that is not in git. It must exist before SST bundles the functions that serve it, so deploys build it first.
// (The module's name is a variable so that neither tsc, without Node's types here, nor SST's bundler follows it.)
const childProcess: string = "node:child_process";
const { execFileSync } = await import(childProcess);
execFileSync("npm", ["run", "--silent", "build:console"], { stdio: "inherit" });

export {};
