// How every function is built and run; the bench prices and bundles them the same way. Keep this file free of imports.
export const FUNCTION_DEFAULTS = {
  runtime: "nodejs24.x",
  architecture: "arm64",
  memory: "512 MB",
  // splitting: what is imported on first use (ajv, jose, the SDK's credential providers) ships as its own chunk and is not
  // compiled at init; `npm run bench` measured the execution function's init at 84 ms against 109 ms as one file.
  // install: cedar-wasm's Node build reads its .wasm file beside its own code, so it ships as a package, not in the bundle.
  nodejs: { minify: true, splitting: true, install: ["@cedar-policy/cedar-wasm"] as string[] },
} as const;
