// The protocol's absent-means-complete bridge for results: reached only through mcp-connection.ts, like the executor itself.

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A JSON-RPC message with its result's resultType: a result without one is complete, the protocol's
 * absent-means-complete bridge, which a 2025-era server that also offers 2026-07-28 (or answers as if it did not)
 * needs; the SDK's 2025 reading drops the field again. Anything else as it came.
 */
export function withResultType(message: unknown): unknown {
  if (Array.isArray(message)) return message.map(withResultType);
  if (!isObject(message) || !("id" in message) || !isObject(message.result) || "resultType" in message.result) return message;
  return { ...message, result: { ...message.result, resultType: "complete" } };
}

const LINE_END = /\r\n|\r|\n/g;

/** One event of a stream (its lines), its data given withResultType when it is a JSON-RPC result. */
function eventWithResultType(lines: string[]): string[] {
  const isData = (line: string) => line === "data" || line.startsWith("data:");
  const data = lines.filter(isData).map((line) => line.slice(5).replace(/^ /, "")).join("\n");
  if (!data.includes('"result"')) return lines;
  let message: unknown;
  try {
    message = JSON.parse(data);
  } catch {
    return lines;
  }
  const read = withResultType(message);
  return read === message ? lines : [...lines.filter((line) => !isData(line)), `data: ${JSON.stringify(read)}`];
}

/** An event stream passed on event by event, as each ends (so progress still arrives during a call), each read by eventWithResultType. */
export function eventsWithResultType(): TransformStream<string, string> {
  let line = "";
  let event: string[] = [];
  let endedOnCarriageReturn = false;
  return new TransformStream({
    transform(chunk, controller) {
      const text = endedOnCarriageReturn && chunk.startsWith("\n") ? chunk.slice(1) : chunk;
      let from = 0;
      for (const end of text.matchAll(LINE_END)) {
        const whole = line + text.slice(from, end.index);
        line = "";
        from = end.index + end[0].length;
        if (whole) event.push(whole);
        else {
          controller.enqueue(event.length ? `${eventWithResultType(event).join("\n")}\n\n` : "\n");
          event = [];
        }
      }
      line += text.slice(from);
      endedOnCarriageReturn = text.endsWith("\r");
    },
    flush(controller) {
      if (event.length || line) controller.enqueue([...event, line].join("\n"));
    },
  });
}

/**
 * The answer with its results' resultType (withResultType), a JSON body read whole, an event stream as it arrives;
 * `streamFailed` hears why an event stream's body ended early.
 */
export async function withResultTypes(response: Response, streamFailed: (error: unknown) => void): Promise<Response> {
  const type = response.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (!response.body || (type !== "application/json" && type !== "text/event-stream")) return response;
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  const init = { status: response.status, statusText: response.statusText, headers };
  if (type === "text/event-stream") {
    const events = eventsWithResultType();
    void response.body
      .pipeThrough(new TextDecoderStream())
      .pipeTo(events.writable)
      .catch(streamFailed);
    return new Response(events.readable.pipeThrough(new TextEncoderStream()), init);
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Response(text, init);
  }
  const read = withResultType(body);
  return new Response(read === body ? text : JSON.stringify(read), init);
}
