import { bus } from "./bus";
import { FUNCTION_DEFAULTS } from "./defaults";
import { table } from "./storage";

new sst.aws.CronV2("Cleanup", {
  schedule: "rate(1 hour)",
  function: {
    ...FUNCTION_DEFAULTS,
    handler: "packages/functions/src/cron/cleanup.handler",
    // The bus: calls that lapse are settled here, and announced (call.settled).
    link: [table, bus],
    timeout: "5 minutes",
  },
});
