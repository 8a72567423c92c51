import { createReadStream } from "node:fs";
import { open, stat } from "node:fs/promises";
import type * as z from "zod";
import type { BUILTIN } from "./builtin";
import { confine, relativeName } from "./confine";
import type { Workspace } from "./confine";
import { fileError } from "./file-errors";
import { boundedLines } from "./lines";

/** The most text one read returns; a longer piece ends early, marked truncated, and the next offset reads on. */
export const MAX_READ_BYTES = 256 * 1024;
/** A longer line is returned cut to this many characters (which always fit in MAX_READ_BYTES), and marked truncated. */
export const MAX_LINE_CHARS = 32 * 1024;
const SNIFFED_BYTES = 8192;

/** A NUL byte among the first bytes: the file is not text. */
async function looksBinary(path: string): Promise<boolean> {
  const handle = await open(path, "r");
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(SNIFFED_BYTES), 0, SNIFFED_BYTES, 0);
    return buffer.subarray(0, bytesRead).includes(0);
  } finally {
    await handle.close();
  }
}

export async function readFile(workspace: Workspace, { path, offset = 1, limit }: z.infer<typeof BUILTIN.readFile.parameters>, signal: AbortSignal) {
  const real = await confine(workspace, path);
  const info = await stat(real).catch((error) => {
    throw fileError(path, error);
  });
  if (info.isDirectory()) throw new Error(`${JSON.stringify(path)} is a directory: list it with list_files.`);
  if (!info.isFile()) throw new Error(`${JSON.stringify(path)} is not a regular file.`);
  if (await looksBinary(real).catch((error) => Promise.reject(fileError(path, error))))
    throw new Error(`${JSON.stringify(path)} is not a text file (it holds NUL bytes), so read_file does not return it.`);

  const lines: string[] = [];
  let totalLines = 0;
  let bytes = 0;
  let full = false;
  let lineCut = false;
  const stream = createReadStream(real, { encoding: "utf8", signal }) as AsyncIterable<string>;
  for await (const { text, cut } of boundedLines(stream, MAX_LINE_CHARS)) {
    totalLines++;
    if (totalLines < offset || full) continue;
    const size = Buffer.byteLength(text, "utf8") + 1;
    if (bytes + size > MAX_READ_BYTES) {
      full = true;
      continue;
    }
    lines.push(text);
    bytes += size;
    if (cut) lineCut = true;
    if (lines.length === limit) full = true;
  }
  return {
    path: relativeName(workspace, real),
    content: lines.join("\n"),
    offset,
    limit,
    lines: lines.length,
    totalLines,
    truncated: lineCut || offset - 1 + lines.length < totalLines,
  };
}
