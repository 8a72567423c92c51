// Installs SST's platform (types for $config and sst.aws.*) from the npm registry alone,
// so that tsconfig.infra.json can typecheck the infra without AWS or Pulumi downloads.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const marker = join(root, ".sst", "platform", "config.d.ts");

if (existsSync(marker)) {
  console.log("install-platform: .sst/platform already installed, nothing to do");
  process.exit(0);
}

const result = spawnSync("npx", ["--no", "sst", "install", "--stage", "ci"], {
  cwd: root,
  stdio: ["ignore", "inherit", "inherit"],
  env: {
    ...process.env,
    SST_SKIP_DEPENDENCY_CHECK: "1",
    SST_TELEMETRY_DISABLED: "1",
    SST_NO_BUN: "1",
  },
});

if (result.error || result.status !== 0 || !existsSync(marker)) {
  const reason = result.error?.message ?? `exit code ${result.status}`;
  console.error(
    `install-platform: "npx --no sst install --stage ci" failed (${reason}); ` +
      `.sst/platform/config.d.ts is missing, so the infra cannot be typechecked`,
  );
  process.exit(1);
}

console.log("install-platform: installed the SST platform into .sst/platform");
