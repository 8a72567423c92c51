/** The direction of the code, checked by `npm run lint` (and CI). */
module.exports = {
  forbidden: [
    {
      name: "the-module-sdk-stands-alone",
      comment: "packages/module is published on its own: it reaches into no other package (toolgate's core uses it, not the other way).",
      severity: "error",
      from: { path: "^packages/module/src/", pathNot: "\\.test\\.ts$" },
      to: { path: "^packages/(core|functions|local)/" },
    },
    {
      name: "no-circular",
      comment: "No file depends on itself through others, lazy import() included.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "storage-imports-only-schemas-and-errors",
      comment: "dynamo/ is the one storage boundary: it stores the domain's schemas and raises its errors, and knows nothing else of it.",
      severity: "error",
      from: { path: "^packages/core/src/dynamo/", pathNot: "\\.test\\.ts$" },
      to: {
        path: "^packages/core/src/",
        pathNot: ["^packages/core/src/dynamo/", "^packages/core/src/[a-z-]+/schema\\.ts$", "^packages/core/src/error\\.ts$"],
      },
    },
    {
      name: "edges-import-core-entry-points",
      comment: "functions/ and local/ use the core through its areas' entry points (the package's exports), never its storage or caches.",
      severity: "error",
      from: { path: "^packages/(functions|local)/src/", pathNot: "\\.test\\.tsx?$" },
      to: {
        path: "^packages/core/src/",
        pathNot: [
          "^packages/core/src/(toolgate|error|json|validation|cleanup|health)\\.ts$",
          "^packages/core/src/[a-z-]+/index\\.ts$",
          "^packages/core/src/module/events\\.ts$",
          "^packages/core/src/mcp/streams-shutdown\\.ts$",
          "^packages/core/src/events/(types|rules|webhook)\\.ts$",
          "^packages/core/src/dynamo/table\\.ts$",
        ],
      },
    },
    {
      name: "core-does-not-know-its-edges",
      severity: "error",
      from: { path: "^packages/core/" },
      to: { path: "^packages/(functions|local)/" },
    },
    {
      name: "functions-do-not-know-the-local-runner",
      severity: "error",
      from: { path: "^packages/functions/" },
      to: { path: "^packages/local/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|\\.sst|dist)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
