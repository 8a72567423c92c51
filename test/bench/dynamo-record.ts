import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { performance } from "node:perf_hooks";

/** One DynamoDB command as the client sent it: input marshalled (AttributeValues), wall times from performance.now(). */
export type DynamoRequest = {
  operation: string;
  input: Record<string, any>;
  startedMs: number;
  endedMs: number;
  capacityUnits: number;
};

/** The operations whose input takes ReturnConsumedCapacity (DynamoDB API reference, each action's request syntax). */
const TAKES_RETURN_CONSUMED_CAPACITY = new Set([
  "BatchExecuteStatement",
  "BatchGetItem",
  "BatchWriteItem",
  "DeleteItem",
  "ExecuteStatement",
  "ExecuteTransaction",
  "GetItem",
  "PutItem",
  "Query",
  "Scan",
  "TransactGetItems",
  "TransactWriteItems",
  "UpdateItem",
]);

const operationOf = (context: { commandName?: string }) => String(context.commandName ?? "unknown").replace(/Command$/, "");

/** Asks every request that can report it for ReturnConsumedCapacity: "TOTAL". */
export function askForCapacity(client: DynamoDBClient): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (!TAKES_RETURN_CONSUMED_CAPACITY.has(operationOf(context))) return next(args);
      return next({ ...args, input: { ...(args.input as object), ReturnConsumedCapacity: "TOTAL" } });
    },
    { step: "initialize", name: "benchReturnConsumedCapacity" },
  );
}

/** Sums CapacityUnits of a response's ConsumedCapacity (one object, or one per table for batches and transactions). */
export function capacityUnitsOf(output: unknown): number {
  const consumed = (output as { ConsumedCapacity?: unknown } | undefined)?.ConsumedCapacity;
  const entries = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
  return entries.reduce((sum: number, entry: { CapacityUnits?: number }) => sum + (entry.CapacityUnits ?? 0), 0);
}

export const capacityOf = (requests: readonly DynamoRequest[]) => requests.reduce((sum, request) => sum + request.capacityUnits, 0);

/**
 * Records the commands a client sends between begin() and end(), at the build step: after the document client has
 * marshalled the input, once per command (retries are below, in finalizeRequest). Keeps only the current window,
 * so it holds no memory between windows.
 */
export class DynamoRecorder {
  /** Capacity units reported over the recorder's life, recording or not. */
  capacityUnits = 0;
  private window: DynamoRequest[] | undefined;

  constructor(client: DynamoDBClient) {
    askForCapacity(client);
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const startedMs = performance.now();
        const window = this.window;
        let output: unknown;
        try {
          const result = await next(args);
          output = result.output;
          return result;
        } finally {
          const capacityUnits = capacityUnitsOf(output);
          this.capacityUnits += capacityUnits;
          window?.push({ operation: operationOf(context), input: args.input as Record<string, any>, startedMs, endedMs: performance.now(), capacityUnits });
        }
      },
      { step: "build", name: "benchDynamoRecorder" },
    );
  }

  begin(): void {
    this.window = [];
  }

  end(): DynamoRequest[] {
    const requests = this.window ?? [];
    this.window = undefined;
    return requests;
  }
}
