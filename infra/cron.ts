import { table } from "./storage";

new sst.aws.CronV2("Cleanup", {
  schedule: "rate(1 hour)",
  function: {
    handler: "packages/functions/src/cron/cleanup.handler",
    link: [table],
    timeout: "5 minutes",
  },
});
