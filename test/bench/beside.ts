// Two kinds of guarded call measured beside each other, each over the floor of its own DynamoDB requests.
import type { DynamoRequest } from "./dynamo-record";
import type { DynamoFloor } from "./floor";
import { inShuffledRounds, percentile } from "./support";

/** One guarded call: how long it took, and the DynamoDB requests it made (for its floor to replay). */
export type Measured = { ms: number; requests: DynamoRequest[] };

export type Beside = { first: number[]; firstFloor: number[]; second: number[]; secondFloor: number[]; direct: number[]; firstFloorOperations: string };

/**
 * Calls of `first` and `second`, the floor of each one's last call, and a direct call to the executor, in a new order
 * each round after `warmup` calls of each: what one leaves behind falls on the others alike.
 */
export async function measureBeside(first: () => Promise<Measured>, second: () => Promise<Measured>, floor: DynamoFloor, direct: () => Promise<number>, warmup: number, rounds: number): Promise<Beside> {
  const measured: Beside = { first: [], firstFloor: [], second: [], secondFloor: [], direct: [], firstFloorOperations: "" };
  let lastFirst: DynamoRequest[] = [];
  let lastSecond: DynamoRequest[] = [];
  for (let n = 0; n < warmup; n++) {
    lastFirst = (await first()).requests;
    lastSecond = (await second()).requests;
  }
  await inShuffledRounds(
    [
      async () => {
        const call = await first();
        measured.first.push(call.ms);
        lastFirst = call.requests;
      },
      async () => {
        const call = await second();
        measured.second.push(call.ms);
        lastSecond = call.requests;
      },
      async () => {
        measured.firstFloor.push(await floor.replay(lastFirst));
        measured.firstFloorOperations = floor.operations;
      },
      async () => void measured.secondFloor.push(await floor.replay(lastSecond)),
      async () => void measured.direct.push(await direct()),
    ],
    rounds,
    (step) => step(),
  );
  return measured;
}

/** A guarded call's overhead over the direct call, in units of its own floor (p50s). */
export const overheadVsFloor = (guarded: readonly number[], floor: readonly number[], direct: readonly number[]) =>
  (percentile(guarded, 50) - percentile(direct, 50)) / percentile(floor, 50);
