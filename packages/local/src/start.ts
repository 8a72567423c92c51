process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
// The terminal shows warnings, errors and a summary line of requests; POWERTOOLS_LOG_LEVEL=INFO shows every request, as on AWS.
process.env.POWERTOOLS_LOG_LEVEL ||= "WARN";

const { JavaRequiredError } = await import("./dynamo-local");
const { LockHeldError } = await import("./lock");
const { optionsFromEnv, startLocal } = await import("./stack");
const { everyRequestLogged } = await import("./request-log");
const { onStopSignal } = await import("./stop-signals");

export {};
const tokenSource = {
  environment: "from TOOLGATE_ADMIN_TOKEN",
  file: "read from {dir}/admin-token",
  generated: "generated and saved to {dir}/admin-token",
  ephemeral: "generated for this run only (in-memory mode)",
} as const;

const keysSource = {
  environment: "from TOOLGATE_LOCAL_AWS_ACCESS_KEY_ID and TOOLGATE_LOCAL_AWS_SECRET_ACCESS_KEY",
  file: "read from {file}",
  generated: "generated and saved to {file}",
  ephemeral: "generated for this run only (in-memory mode)",
} as const;

/** The AWS CLI's variables for the local key pair, without printing the secret when it can be read from its file. */
function keysForCli({ awsCredentials: keys }: Awaited<ReturnType<typeof startLocal>>) {
  if (keys.source === "environment") return "AWS_ACCESS_KEY_ID=$TOOLGATE_LOCAL_AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY=$TOOLGATE_LOCAL_AWS_SECRET_ACCESS_KEY";
  if (keys.file === undefined) return `AWS_ACCESS_KEY_ID=${keys.accessKeyId} AWS_SECRET_ACCESS_KEY=${keys.secretAccessKey}`;
  const read = (field: string) => `$(node -p "require('${keys.file}').${field}")`;
  return `AWS_ACCESS_KEY_ID=${read("accessKeyId")} AWS_SECRET_ACCESS_KEY=${read("secretAccessKey")}`;
}

/** How to get the admin token into a shell, without printing it when it can be read from its file. */
function tokenExport(stack: Awaited<ReturnType<typeof startLocal>>) {
  if (stack.adminToken.source === "environment") return "# TOOLGATE_ADMIN_TOKEN is already set in your environment";
  if (stack.adminToken.source === "ephemeral") return `export TOOLGATE_ADMIN_TOKEN=${stack.adminToken.value}`;
  return `export TOOLGATE_ADMIN_TOKEN=$(cat ${stack.dataDir}/admin-token)`;
}

type PortError = NodeJS.ErrnoException & { port: number; address: string };

const portTaken = ({ port, address }: PortError) =>
  `Port ${port} on ${address} is already in use (another toolgate, or another program); nothing was started. ` +
  `Set PORT to another port, e.g. PORT=${port < 65535 ? port + 1 : port - 1} npm start`;

const interval = (ms: number) => (ms === 60_000 ? "minute" : `${ms / 1000} s`);

async function main() {
  const options = optionsFromEnv();
  const stack = await startLocal(options);
  const source = tokenSource[stack.adminToken.source].replace("{dir}", stack.dataDir ?? "");
  const keys = keysSource[stack.awsCredentials.source].replace("{file}", stack.awsCredentials.file ?? "");
  console.log(
    [
      "",
      `toolgate is running at ${stack.url}`,
      `  data:        ${stack.dataDir ? `${stack.dataDir} (kept across restarts)` : "in memory (TOOLGATE_IN_MEMORY=1)"}`,
      `  admin token: ${source}`,
      `  AWS keys:    ${keys}; the events endpoint takes only requests signed with them, and DynamoDB Local keeps toolgate's data under their key id`,
      `  events:      EventBridge PutEvents endpoint at ${stack.url}/eventbridge (signed with the AWS keys, or the admin token as a bearer token)`,
      `  console:     ${stack.url}/console (sign in with the admin token)`,
      everyRequestLogged()
        ? `  logs:        every request, one JSON line each (POWERTOOLS_LOG_LEVEL=${process.env.POWERTOOLS_LOG_LEVEL})`
        : `  logs:        warnings, errors and a summary of requests every ${interval(options.requestSummaryIntervalMs)} (POWERTOOLS_LOG_LEVEL=INFO npm start prints every request)`,
      stack.exampleModule
        ? `  example:     the example module's group "example" (word_count, current_time), its executor at ${stack.exampleModule}`
        : "  example:     off (TOOLGATE_EXAMPLE_MODULE=1 npm start adds a module with two tools to try)",
      "",
      "Try it:",
      `  ${tokenExport(stack)}`,
      `  curl -s -H "Authorization: Bearer $TOOLGATE_ADMIN_TOKEN" ${stack.url}/groups`,
      "",
      "Put an event (the AWS CLI; an AWS SDK client takes the same keys as its credentials, region us-east-1):",
      `  ${keysForCli(stack)} aws events put-events --region us-east-1 --endpoint-url ${stack.url}/eventbridge --entries 'Source=demo,DetailType=hello,Detail="{}"'`,
      "",
      "Ctrl-C stops it.",
    ].join("\n"),
  );
  onStopSignal(async (signal) => {
    console.log(`\n${signal}: stopping toolgate and DynamoDB Local...`);
    await stack.stop();
  }, "toolgate did not stop cleanly");
}

main().catch((error) => {
  if (error instanceof JavaRequiredError || error instanceof LockHeldError) console.error(`\n${error.message}\n`);
  else if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") console.error(`\n${portTaken(error as PortError)}\n`);
  else console.error(`\ntoolgate could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
