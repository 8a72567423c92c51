// A stand-in for the Lambda runtime, run with `fork()`: imports one built handler at start, as a cold function does,
// then answers each message { id, event } with { id, result } or { id, error }, one invocation at a time.
import { pathToFileURL } from "node:url";

const { handler } = await import(pathToFileURL(process.env.LAMBDA_HANDLER_FILE).href);
let queue = Promise.resolve();

const context = (id) => ({
  awsRequestId: id,
  functionName: "toolgate-test",
  functionVersion: "$LATEST",
  memoryLimitInMB: "512",
  getRemainingTimeInMillis: () => 30_000,
  callbackWaitsForEmptyEventLoop: true,
});

process.on("message", ({ id, event }) => {
  queue = queue.then(async () => {
    try {
      process.send({ id, result: (await handler(event, context(id))) ?? null });
    } catch (error) {
      process.send({ id, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
    }
  });
});

process.send({ ready: true });
