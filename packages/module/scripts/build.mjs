// Builds the package as it is published, into dist/: JavaScript and declarations (tsc, for Node's own ESM
// resolution), the SST component as TypeScript (an app's sst.config.ts is compiled by SST), the README, and a
// package.json whose exports name the built files. Publish with `npm publish packages/module/dist`.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE = join(dirname(fileURLToPath(import.meta.url)), "..");
const DIST = join(PACKAGE, "dist");
const source = JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8"));

rmSync(DIST, { recursive: true, force: true });
execFileSync(process.execPath, [join(PACKAGE, "../../node_modules/typescript/bin/tsc"), "-p", join(PACKAGE, "tsconfig.build.json")], { stdio: "inherit" });
mkdirSync(join(DIST, "sst"), { recursive: true });
copyFileSync(join(PACKAGE, "src/sst/index.ts"), join(DIST, "sst/index.ts"));
copyFileSync(join(PACKAGE, "README.md"), join(DIST, "README.md"));

/** "./src/tool.ts" → { types: "./tool.d.ts", default: "./tool.js" }; the SST component stays TypeScript. */
const built = (path) => {
  const file = path.replace(/^\.\/src\//, "./");
  return file.endsWith("/sst/index.ts") ? file : { types: file.replace(/\.ts$/, ".d.ts"), default: file.replace(/\.ts$/, ".js") };
};
const { scripts: _scripts, ...published } = source;
writeFileSync(
  join(DIST, "package.json"),
  `${JSON.stringify(
    {
      ...published,
      exports: Object.fromEntries(Object.entries(source.exports).map(([name, path]) => [name, built(path)])),
      engines: { node: ">=20.19" },
    },
    null,
    2,
  )}\n`,
);
console.log(`built ${DIST}`);
