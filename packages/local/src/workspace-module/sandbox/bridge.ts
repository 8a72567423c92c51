import { spawn } from "node:child_process";
import { constants } from "node:os";
import { connect, createServer } from "node:net";
import type { Bridge } from "./index";

// A command's first process when hosts are allowed: TCP on the sandbox's own loopback bridged to the proxy's socket
// (the one way out), then the line run with /bin/sh -c, and this process ending as the shell did.

function openBridge({ port, socket }: Bridge): Promise<void> {
  const server = createServer((client) => {
    const proxy = connect(socket);
    client.pipe(proxy).pipe(client);
    client.on("error", () => proxy.destroy());
    proxy.on("error", () => client.destroy());
  });
  return new Promise((listening, failed) => server.once("error", failed).listen(port, "127.0.0.1", () => listening()));
}

function endAs(code: number | null, signal: NodeJS.Signals | null): never {
  if (signal) {
    process.removeAllListeners("SIGTERM");
    process.kill(process.pid, signal);
  }
  process.exit(code ?? 128 + (signal ? constants.signals[signal] : 0));
}

async function main() {
  const [bridge, line] = process.argv.slice(2) as [string, string];
  // The stop at a timeout goes to the whole process group: the shell ends, and this process with it, as it did.
  process.on("SIGTERM", () => {});
  await openBridge(JSON.parse(bridge) as Bridge);
  spawn("/bin/sh", ["-c", line], { stdio: "inherit" }).once("exit", endAs);
}

main().catch((error: unknown) => {
  console.error(`The sandbox's bridge to its proxy did not open: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(126);
});
