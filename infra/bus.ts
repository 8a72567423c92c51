import { MODULE_EVENTS_PATTERN } from "../packages/core/src/module/events";
import { FUNCTION_DEFAULTS } from "./defaults";
import { adminToken, moduleSecrets, moduleSecretsEnvironment, signingKey } from "./secret";
import { table } from "./storage";

export const bus = new sst.aws.Bus("Bus");

bus.subscribe(
  "ModuleEvents",
  {
    ...FUNCTION_DEFAULTS,
    handler: "packages/functions/src/event/modules.handler",
    link: [table, adminToken, signingKey, ...moduleSecrets],
    environment: moduleSecretsEnvironment,
    timeout: "30 seconds",
  },
  {
    pattern: {
      source: MODULE_EVENTS_PATTERN.source,
      detailType: MODULE_EVENTS_PATTERN.detailType,
    },
  },
);
