import { createInterface } from "node:readline";
import { listFiles } from "./list-files";
import { readFile } from "./read-file";
import { workingDirectory } from "./working-directory";
import { workspaceInfo } from "./workspace-info";
import { writeFile } from "./write-file";

// The file operations' process inside the sandbox: requests as JSON lines on stdin, answers as JSON lines on stdout.

const OPERATIONS = { read_file: readFile, write_file: writeFile, list_files: listFiles, get_workspace_info: workspaceInfo, working_directory: workingDirectory };

export type FileOperation = keyof typeof OPERATIONS;
export type FileToolName = Exclude<FileOperation, "working_directory">;
export type FileRequest = { id: number; operation: FileOperation; input: unknown } | { cancel: number };
export type FileAnswer = { ready: true } | { id: number; value: unknown } | { id: number; error: string };

const workspace = { root: process.argv[2]! };
const running = new Map<number, AbortController>();
const answer = (message: FileAnswer) => process.stdout.write(`${JSON.stringify(message)}\n`);

async function perform({ id, operation: name, input }: { id: number; operation: FileOperation; input: unknown }) {
  const controller = new AbortController();
  running.set(id, controller);
  try {
    const operation = OPERATIONS[name] as (workspace: { root: string }, input: unknown, signal: AbortSignal) => Promise<unknown>;
    answer({ id, value: await operation(workspace, input, controller.signal) });
  } catch (error) {
    answer({ id, error: error instanceof Error ? error.message : String(error) });
  } finally {
    running.delete(id);
  }
}

createInterface({ input: process.stdin })
  .on("line", (line) => {
    const request = JSON.parse(line) as FileRequest;
    if ("cancel" in request) running.get(request.cancel)?.abort();
    else void perform(request);
  })
  .on("close", () => process.exit(0));
answer({ ready: true });
