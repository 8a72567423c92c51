import { ROUTES, type ApiFunctionName } from "../packages/functions/src/routes";
import { bus, callEventsEnvironment } from "./bus";
import { FUNCTION_DEFAULTS } from "./defaults";
import { adminToken, moduleSecrets, moduleSecretsEnvironment, signingKey } from "./secret";
import { table } from "./storage";

export const api = new sst.aws.ApiGatewayV2("Api");

// HTTP APIs cut every integration at 30 s; execution runs on so a 30 s tool call still aborts and records its outcome.
const functions: Record<ApiFunctionName, sst.aws.Function> = {
  groups: apiFunction("GroupsFunction", "packages/functions/src/api/groups.handler", "29 seconds"),
  roles: apiFunction("RolesFunction", "packages/functions/src/api/roles.handler", "29 seconds"),
  execution: apiFunction("ExecutionFunction", "packages/functions/src/api/execution.handler", "60 seconds"),
};

for (const group of Object.keys(functions) as ApiFunctionName[]) {
  for (const route of ROUTES[group]) {
    api.route(route, functions[group].arn);
  }
}

function apiFunction(name: string, handler: string, timeout: `${number} seconds`) {
  return new sst.aws.Function(name, {
    ...FUNCTION_DEFAULTS,
    handler,
    timeout,
    // The bus: each function publishes toolgate's events (call.*, agent.*, role.changed, group.changed) after its writes.
    link: [table, bus, adminToken, signingKey, ...moduleSecrets],
    environment: { ...moduleSecretsEnvironment, ...callEventsEnvironment },
  });
}
