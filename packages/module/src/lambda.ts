import type { Hono } from "hono";
import { handle } from "hono/aws-lambda";
import type { APIGatewayProxyResult, LambdaContext, LambdaEvent } from "hono/aws-lambda";
import type { Module } from "./module.js";
import { isRegistrationEvent, REGISTRATION_KEY } from "./registration.js";
import type { Registration, RegistrationEvent } from "./registration.js";

export type { Registration, RegistrationEvent } from "./registration.js";
export { registrationInput } from "./registration.js";

/** What a registration event answers: the deploy records it as the invocation's result. */
export type RegistrationResult = { module: string; action: "announced" | "withdrawn"; url: string; version: string };

export type ModuleLambdaHandler = (event: LambdaEvent | RegistrationEvent, context?: LambdaContext) => Promise<APIGatewayProxyResult | RegistrationResult>;

/**
 * The request at the URL it arrived at. A Lambda event names no scheme and hono assumes https, which function URLs and
 * API Gateway always are; a front that serves plain http says so in X-Forwarded-Proto, as they do. The URL matters:
 * it is the audience toolgate's tokens must name.
 */
async function asArrived(request: Request): Promise<Request> {
  if (request.headers.get("x-forwarded-proto") !== "http") return request;
  const url = new URL(request.url);
  url.protocol = "http:";
  const body = request.body ? await request.arrayBuffer() : undefined;
  return new Request(url, { method: request.method, headers: request.headers, body });
}

/** fetch's own failure (no connection, no such host): undici throws a TypeError with the reason as its cause. */
const isUnreachable = (error: unknown) => error instanceof TypeError && error.cause !== undefined;

/**
 * Withdraws the group from a toolgate that is being left (the module removed, or moved to another toolgate). A toolgate
 * that cannot be reached at all is gone or down: removing the module goes on, so that the removal of a whole stage is
 * never stuck on it; a toolgate that answers with a refusal (a wrong admin token) fails the deploy.
 */
async function withdrawFrom(module: LambdaModule, registrar: { adminToken: string; toolgateUrl: string }) {
  try {
    await module.withdraw(registrar);
  } catch (error) {
    if (!isUnreachable(error)) throw error;
    console.warn(JSON.stringify({ level: "warn", message: "toolgate could not be reached to withdraw the module", module: module.id, toolgateUrl: registrar.toolgateUrl }));
  }
}

/** What a Lambda handler needs of a module: its id and version, how it answers requests, registers with toolgate and leaves it. */
export type LambdaModule = Pick<Module, "id" | "fetch" | "announce" | "withdraw"> & { definitions(): { version: string } };

async function register(module: LambdaModule, event: RegistrationEvent): Promise<RegistrationResult> {
  const registration = event[REGISTRATION_KEY];
  const { version } = module.definitions();
  const done = (action: RegistrationResult["action"]): RegistrationResult => ({ module: module.id, action, url: registration.url, version });
  if (event.tf.action === "delete") {
    await withdrawFrom(module, registration);
    return done("withdrawn");
  }
  const previous = event.tf.prev_input?.[REGISTRATION_KEY];
  if (previous && previous.toolgateUrl !== registration.toolgateUrl) await withdrawFrom(module, previous);
  await module.announce({ adminToken: registration.adminToken, toolgateUrl: registration.toolgateUrl, url: registration.url });
  return done("announced");
}

/**
 * The module as a Lambda function's handler: requests from a function URL, API Gateway or a load balancer are answered
 * by `module.fetch` (through `hono/aws-lambda`), and the registration event the SST component `ToolgateModule` sends on
 * deploy and removal (`@toolgate/module/sst`) registers the module with toolgate or withdraws it.
 */
export function lambdaHandler(module: LambdaModule): ModuleLambdaHandler {
  // handle() calls nothing of the app but its fetch, so a module needs no Hono app (nor its router in its bundle).
  const http = handle({ fetch: async (request: Request) => module.fetch(await asArrived(request)) } as unknown as Hono);
  return (event, context) => (isRegistrationEvent(event) ? register(module, event) : http(event, context));
}
