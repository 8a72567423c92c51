/// <reference path="./.sst/platform/config.d.ts" />

export default $config({
  app(input) {
    return {
      name: "toolgate",
      removal: input?.stage === "production" ? "retain" : "remove",
      protect: input?.stage === "production",
      home: "aws",
    };
  },
  async run() {
    await import("./infra/secret");
    const { table } = await import("./infra/storage");
    const { bus } = await import("./infra/bus");
    await import("./infra/console");
    const { api } = await import("./infra/api");
    await import("./infra/cron");

    return {
      api: api.url,
      table: table.name,
      bus: bus.name,
    };
  },
});
