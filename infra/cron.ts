import { FUNCTION_DEFAULTS } from "./defaults";
import { table } from "./storage";

new sst.aws.CronV2("Cleanup", {
  schedule: "rate(1 hour)",
  function: {
    ...FUNCTION_DEFAULTS,
    handler: "packages/functions/src/cron/cleanup.handler",
    // The calls it settles are announced from the table's stream (call.settled), not from here.
    link: [table],
    timeout: "5 minutes",
  },
});
