import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["packages/*/src/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    setupFiles: ["test/support/test-output.ts"],
    // A passing test prints nothing; a failing one is shown with what it printed and logged (--silent=false shows all).
    silent: "passed-only",
    testTimeout: 30_000,
    hookTimeout: 90_000,
    pool: "forks",
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true", POWERTOOLS_LOG_LEVEL: "WARN" },
  },
});
