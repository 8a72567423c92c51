export type Line = { text: string; cut: boolean };

const withoutCarriageReturn = (text: string) => (text.endsWith("\r") ? text.slice(0, -1) : text);

/**
 * The lines of a text stream (split at "\n", a "\r" before it dropped), each kept to its first `maxChars` characters
 * and marked `cut` when it was longer, so a file with one enormous line is read in bounded memory.
 */
export async function* boundedLines(chunks: AsyncIterable<string>, maxChars: number): AsyncGenerator<Line> {
  let line = "";
  let cut = false;
  for await (const chunk of chunks) {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf("\n", start);
      if (!cut) {
        line += end === -1 ? chunk.slice(start) : chunk.slice(start, end);
        if (line.length > maxChars) {
          line = line.slice(0, maxChars);
          cut = true;
        }
      }
      if (end === -1) break;
      yield { text: withoutCarriageReturn(line), cut };
      line = "";
      cut = false;
      start = end + 1;
    }
  }
  if (line !== "" || cut) yield { text: withoutCarriageReturn(line), cut };
}
