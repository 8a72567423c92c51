import { MODULE_EVENTS_PATTERN } from "../packages/core/src/module/events";
import { loadWebhookRules, publishedCallEvents } from "../packages/core/src/events/rules";
import { ToolgateEventType } from "../packages/core/src/events/types";
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

/**
 * Optional subscribers of toolgate's own events, the same rules `npm start` reads: TOOLGATE_EVENT_RULES at deploy
 * (a JSON list, or the path of a file holding one). Each rule's matching events are POSTed to its webhook by a function.
 */
const rules = loadWebhookRules(process.env.TOOLGATE_EVENT_RULES);

/** The per-call events published (those a rule subscribes to, or all with TOOLGATE_CALL_EVENTS=always): none costs nothing. */
const callEvents = publishedCallEvents(rules, process.env.TOOLGATE_CALL_EVENTS);
export const callEventsEnvironment = { TOOLGATE_CALL_EVENT_TYPES: callEvents.join(",") };

// call.settled, published from the table's stream after the write commits (never on the call's path), where wanted.
if (callEvents.includes(ToolgateEventType.CallSettled))
  table.subscribe(
    "CallEvents",
    { ...FUNCTION_DEFAULTS, handler: "packages/functions/src/event/calls.handler", link: [bus], environment: callEventsEnvironment, timeout: "30 seconds" },
    { filters: [{ dynamodb: { Keys: { sk: { S: [{ prefix: "CALL#" }] } } } }] },
  );

for (const rule of rules) {
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
