// The event that registers a module deployed on Lambda: built by the SST component (src/sst) at deploy time, answered
// by the Lambda entry (src/lambda.ts). Shared with the infra: keep this file free of imports.

/** Where the module is registered, and by whom: what the deploy knows and the module's code does not. */
export type Registration = {
  /** The module's function URL: where toolgate calls it, and the audience of the tokens toolgate signs for it. */
  url: string;
  /** Where toolgate is. */
  toolgateUrl: string;
  /** An admin token of that toolgate. It travels in this event only, never in the function's configuration. */
  adminToken: string;
  /** Changes with the function's code, so that a deploy of new code registers its tools again. */
  code?: string;
};

export const REGISTRATION_KEY = "toolgateRegistration";

/** The invocation's own input: an object, since a CRUD invocation adds its lifecycle key to it. */
export type RegistrationInput = { [REGISTRATION_KEY]: Registration };

export const registrationInput = (registration: Registration): RegistrationInput => ({ [REGISTRATION_KEY]: registration });

/**
 * The input as Lambda receives it from Pulumi's `aws.lambda.Invocation` with `lifecycleScope: "CRUD"` (Terraform's
 * `aws_lambda_invocation`): the lifecycle under the key `tf`, with the input of the previous invocation.
 */
export type RegistrationEvent = RegistrationInput & {
  tf: { action: "create" | "update" | "delete"; prev_input: Partial<RegistrationInput> | null };
};

export function isRegistrationEvent(event: unknown): event is RegistrationEvent {
  if (event === null || typeof event !== "object" || !(REGISTRATION_KEY in event) || !("tf" in event)) return false;
  const { tf } = event as { tf: unknown };
  return tf !== null && typeof tf === "object" && "action" in tf && ["create", "update", "delete"].includes(String(tf.action));
}
