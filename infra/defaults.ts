// How every function is built and run; the bench prices and bundles them the same way. Keep this file free of imports.
export const FUNCTION_DEFAULTS = {
  runtime: "nodejs24.x",
  architecture: "arm64",
  memory: "512 MB",
  nodejs: { minify: true },
} as const;
