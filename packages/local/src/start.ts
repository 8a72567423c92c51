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
  console.log(
    [
      "",
      `toolgate is running at ${stack.url}`,
      `  data:        ${stack.dataDir ? `${stack.dataDir} (kept across restarts)` : "in memory (TOOLGATE_IN_MEMORY=1)"}`,
      `  admin token: ${source}`,
      `  events:      EventBridge PutEvents endpoint at ${stack.url}/eventbridge`,
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
