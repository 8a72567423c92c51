import { MODULE_EVENTS_PATTERN } from "../packages/core/src/module/events";
import { loadWebhookRules } from "../packages/core/src/events/rules";
import { FUNCTION_DEFAULTS } from "./defaults";
import { adminToken, moduleSecrets, moduleSecretsEnvironment, signingKey } from "./secret";
import { table } from "./storage";

export const bus = new sst.aws.Bus("Bus");

bus.subscribe(
  "ModuleEvents",
  {
    ...FUNCTION_DEFAULTS,
    handler: "packages/functions/src/event/modules.handler",
    // The bus too: a module that loads or unloads changes a group, and that is announced (group.changed).
    link: [table, bus, adminToken, signingKey, ...moduleSecrets],
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

// call.settled for every call, published from the table's stream after the write commits, never on the call's path.
table.subscribe(
  "CallEvents",
  { ...FUNCTION_DEFAULTS, handler: "packages/functions/src/event/calls.handler", link: [bus], timeout: "30 seconds" },
  { filters: [{ dynamodb: { Keys: { sk: { S: [{ prefix: "CALL#" }] } } } }] },
);

/**
 * Optional subscribers of toolgate's own events, the same rules `npm start` reads: TOOLGATE_EVENT_RULES at deploy
 * (a JSON list, or the path of a file holding one). Each rule's matching events are POSTed to its webhook by a function.
 */
for (const rule of loadWebhookRules(process.env.TOOLGATE_EVENT_RULES)) {
  bus.subscribe(
    rule.name,
    {
      ...FUNCTION_DEFAULTS,
      handler: "packages/functions/src/event/webhook.handler",
      environment: { TOOLGATE_WEBHOOK_URL: rule.webhook },
      timeout: "30 seconds",
    },
    { pattern: rule.pattern },
  );
}
