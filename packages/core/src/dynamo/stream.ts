import { CallRecord } from "../call/schema";
import { fromAttributes } from "./attributes";
import type { Attributes } from "./attributes";

/** One change of the table as its stream tells it (DynamoDB Streams, NEW_AND_OLD_IMAGES), on AWS and on DynamoDB Local alike. */
export type StreamRecord = { dynamodb?: { NewImage?: Record<string, unknown>; OldImage?: Record<string, unknown> } };

/** A call record before and after one committed write. */
export type CallChange = { before: CallRecord | undefined; after: CallRecord | undefined };

const callOf = (image: Record<string, unknown> | undefined): CallRecord | undefined => {
  if (!image) return undefined;
  const item = fromAttributes(image as Attributes);
  if (typeof item.sk !== "string" || !item.sk.startsWith("CALL#")) return undefined;
  const parsed = CallRecord.safeParse(item.call);
  return parsed.success ? parsed.data : undefined;
};

/** The call records a batch of stream records changed, in order; other items are left out. */
export const callChanges = (records: readonly StreamRecord[]): CallChange[] =>
  records.flatMap((record) => {
    const change = { before: callOf(record.dynamodb?.OldImage), after: callOf(record.dynamodb?.NewImage) };
    return change.before || change.after ? [change] : [];
  });
