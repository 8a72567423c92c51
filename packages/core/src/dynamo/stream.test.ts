import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { expect, test } from "vitest";
import type { CallRecord } from "../call/schema";
import { toAttributes } from "./attributes";
import { callChanges } from "./stream";

const record: CallRecord = {
  callId: "call_1",
  agentId: "agt_1",
  roleId: "rol_1",
  tool: "charge",
  group: "ledger",
  status: "completed",
  arguments: { amount: 1e300, "": [2 ** 60] },
  result: { content: "ok", type: "text", metadata: { n: 1e308, tiny: 5e-324 } },
  startedAt: "2026-01-01T00:00:00.000Z",
  finishedAt: "2026-01-01T00:00:01.000Z",
};

/** An image as a Lambda stream event carries it: JSON, binary attributes as base64 text. */
const lambdaImage = (item: Record<string, unknown>): Record<string, AttributeValue> =>
  JSON.parse(
    JSON.stringify(toAttributes(item), function (this: Record<string, unknown>, key, value) {
      const original = this[key];
      return original instanceof Uint8Array ? Buffer.from(original).toString("base64") : value;
    }),
  );

test("callChanges - a call record holding values kept as JSON text reads back the same from a Lambda stream event", () => {
  const image = lambdaImage({ pk: "AGENT#agt_1", sk: "CALL#call_1", call: record });
  const [change] = callChanges([{ dynamodb: { NewImage: image } }]);
  expect(JSON.stringify(change?.after)).toBe(JSON.stringify(record));
});
