// A small stdio MCP server for the stdio executor's tests, bundled into one file and run inside toolgate's sandbox.
// Its tools try what a stdio server must not do, and report what happened; its first argument picks a misbehaviour.
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { Server } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";

const mode = process.argv[2] ?? "serve";

if (mode === "exit-at-once") {
  console.error("stdio-server: exiting at once, as asked");
  process.exit(2);
}
if (mode === "garbage") process.stdout.write("this is not JSON-RPC, just a banner\n");

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

/** Reads a file; answers what was read, or the error's code. */
function readPath(path: string) {
  try {
    return `read: ${readFileSync(path, "utf8")}`;
  } catch (error) {
    return `refused: ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
  }
}

/** Opens a tunnel to host:443 through the proxy the sandbox names (HTTPS_PROXY), or straight to it without one. */
function reach(host: string): Promise<string> {
  const proxy = process.env.HTTPS_PROXY;
  if (!proxy) return fetch(`https://${host}/`).then((response) => `reached: ${response.status}`, (error: Error) => `refused: ${String(error.cause ?? error.message)}`);
  const { hostname, port } = new URL(proxy);
  return new Promise((done) => {
    const tunnel = request({ host: hostname, port, method: "CONNECT", path: `${host}:443`, timeout: 10_000 });
    tunnel.once("connect", (answer, socket) => {
      socket.destroy();
      done(answer.statusCode === 200 ? "reached: tunnel open" : `refused: the proxy answered ${answer.statusCode}`);
    });
    tunnel.once("timeout", () => tunnel.destroy(new Error("timed out")));
    tunnel.once("error", (error) => done(`refused: ${error.message}`));
    tunnel.end();
  });
}

const input = (properties: Record<string, { type: "string" }> = {}) => ({ type: "object" as const, properties, required: Object.keys(properties) });

const TOOLS = [
  { name: "read_path", description: "Reads a file of this machine.", inputSchema: input({ path: { type: "string" } }) },
  { name: "reach", description: "Connects to a host on port 443.", inputSchema: input({ host: { type: "string" } }) },
  { name: "env", description: "Answers a variable of its environment, and says it on standard error too.", inputSchema: input({ name: { type: "string" } }) },
  { name: "where", description: "Answers its working directory and HOME.", inputSchema: input() },
  { name: "garbage", description: "Writes something that is not JSON-RPC to standard output, then answers nothing.", inputSchema: input() },
  { name: "exit", description: "Ends its process during the call.", inputSchema: input() },
];

const server = new Server({ name: "stdio-test-server", version: "1.0.0" }, { capabilities: { tools: {}, logging: {} } });
server.setRequestHandler("tools/list", async () => ({ tools: TOOLS }));
server.setRequestHandler("tools/call", async (call) => {
  const args = (call.params.arguments ?? {}) as Record<string, string>;
  switch (call.params.name) {
    case "read_path":
      return text(readPath(args.path!));
    case "reach":
      return text(await reach(args.host!));
    case "env":
      console.error(`stdio-server: ${args.name} is ${process.env[args.name!] ?? "unset"}`);
      return text(process.env[args.name!] ?? "unset");
    case "where":
      return text(JSON.stringify({ cwd: process.cwd(), home: process.env.HOME, path: process.env.PATH, variables: Object.keys(process.env).sort() }));
    case "garbage":
      process.stdout.write("garbage in the middle of a call\n");
      return new Promise(() => {});
    case "exit":
      setTimeout(() => process.exit(3), 10);
      return new Promise(() => {});
    default:
      return { ...text(`no tool ${call.params.name}`), isError: true };
  }
});
await server.connect(new StdioServerTransport());
