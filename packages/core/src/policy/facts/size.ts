const utf8Bytes = (text: string) => Buffer.byteLength(text, "utf8");

/** The size of a call's JSON arguments and of their longest string value at any depth; keys do not count. */
export function sizeFacts(args: unknown): { inputBytes: number; largestStringBytes: number } {
  const json = JSON.stringify(args);
  return { inputBytes: json === undefined ? 0 : utf8Bytes(json), largestStringBytes: largestString(args) };
}

function largestString(args: unknown): number {
  let largest = 0;
  const pending: unknown[] = [args];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === "string") largest = Math.max(largest, utf8Bytes(value));
    else if (typeof value === "object" && value !== null)
      for (const child of Array.isArray(value) ? value : Object.values(value)) pending.push(child);
  }
  return largest;
}
