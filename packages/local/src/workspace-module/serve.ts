import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { listen } from "../server";
import { onStopSignal } from "../stop-signals";
import { bindGroups, bindingRequest, unbindGroups } from "./bind";
import type { Bound } from "./bind";
import { SERVED_GROUPS, SERVED_TOOLS } from "./builtin";
import { openWorkspace } from "./confine";
import { dataDirRefusal, toolgateDataDirs } from "./data-dir";
import { openWorkspaceSandbox, workspaceModule } from "./index";

/** A host as --allow-host takes it: a name or an IP address, without a scheme, port or path. */
const HOST = /^([A-Za-z0-9-]+\.)*[A-Za-z0-9-]+\.?$|^\[?[0-9A-Fa-f:.]+\]?$/;

/** Where `npm start` serves toolgate unless PORT or HOST say otherwise. */
const LOCAL_TOOLGATE_URL = "http://127.0.0.1:8787";
const DEFAULT_PORT = 8790;

const USAGE = `Usage: npm run workspace -- <directory> [--port ${DEFAULT_PORT}] [--host 127.0.0.1] [--url <url toolgate calls>] [--bind] [--allow-host <host>]...
  Serves the built-in workspace and command tools on <directory>, for toolgate at TOOLGATE_URL (default ${LOCAL_TOOLGATE_URL}),
  each command and file operation in a bubblewrap sandbox: the directory read-write, the system read-only, no network.
  --allow-host lets commands reach that host (ports 80 and 443) through the sandbox's proxy; repeat it for more.
  --bind binds the module as the executor of the workspace and command groups (needs TOOLGATE_ADMIN_TOKEN), and gives
  them back to the agent's runtime when it stops.`;

function options() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      url: { type: "string" },
      bind: { type: "boolean" },
      "allow-host": { type: "string", multiple: true },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help || positionals.length !== 1) {
    console.log(USAGE);
    process.exit(values.help ? 0 : 2);
  }
  const port = Number(values.port ?? DEFAULT_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number; got "${values.port}".`);
  // npm runs scripts from the repository's root; a relative directory is meant from where the command was typed.
  const root = resolve(process.env.INIT_CWD ?? process.cwd(), positionals[0]!);
  const allowedHosts = values["allow-host"] ?? [];
  const notHost = allowedHosts.find((name) => !HOST.test(name));
  if (notHost !== undefined) throw new Error(`--allow-host takes a host, such as registry.npmjs.org, without a scheme, port or path; got "${notHost}".`);
  return { root, port, host: values.host ?? "127.0.0.1", url: values.url, bind: values.bind ?? false, allowedHosts };
}

const curl = (toolgateUrl: string, method: string, path: string, body?: unknown) =>
  `curl -s -X ${method} ${toolgateUrl}${path} -H "Authorization: Bearer $TOOLGATE_ADMIN_TOKEN"` + (body === undefined ? "" : ` -H 'content-type: application/json' -d '${JSON.stringify(body)}'`);

async function main() {
  const { root, port, host, url: givenUrl, bind, allowedHosts } = options();
  const toolgateUrl = (process.env.TOOLGATE_URL || LOCAL_TOOLGATE_URL).replace(/\/+$/, "");
  const adminToken = process.env.TOOLGATE_ADMIN_TOKEN;
  if (bind && !adminToken) throw new Error("--bind needs the admin token in TOOLGATE_ADMIN_TOKEN.");
  const workspace = await openWorkspace(root);
  // toolgate's local data (its admin token among it) must not be reachable through the module.
  const refusal = dataDirRefusal(workspace.root, toolgateDataDirs());
  if (refusal) throw new Error(refusal);
  const sandbox = await openWorkspaceSandbox(workspace, allowedHosts);

  const server = await listen(port, host);
  const url = givenUrl ?? `http://${host.includes(":") ? `[${host}]` : host}:${server.port}/call`;
  server.serve(workspaceModule({ workspace, sandbox, url, toolgate: { url: toolgateUrl } }).fetch);
  const keys = await fetch(`${toolgateUrl}/.well-known/jwks.json`).then((response) => response.ok, () => false);

  let bound: Bound[] = [];
  // The groups given back on the way out; a toolgate that cannot take them back exits 1, saying why.
  onStopSignal(async () => {
    const notes = bound.length ? await unbindGroups({ toolgateUrl, adminToken: adminToken! }, bound) : [];
    notes.forEach((note) => console.log(note));
    await sandbox.close();
  }, "The groups could not be given back");
  if (bind) bound = await bindGroups({ toolgateUrl, adminToken: adminToken! }, url);
  console.log(
    [
      "",
      `The workspace module serves ${workspace.root} at ${url}`,
      `  tools:    ${SERVED_TOOLS.join(", ")} (groups ${SERVED_GROUPS.join(" and ")}); run_javascript is answered with a refusal`,
      `  toolgate: ${toolgateUrl}${keys ? "" : " (not reachable now: calls are checked against its keys once it is)"}; only calls it signed run`,
      "  sandbox:  every command and file operation runs in a bubblewrap sandbox: this directory read-write, the system",
      `            read-only, nothing else of this machine; ${allowedHosts.length ? `network only to ${allowedHosts.join(", ")} (ports 80 and 443, through a proxy)` : "no network"}`,
      "",
      bind
        ? `Bound as the executor of ${SERVED_GROUPS.join(" and ")}; stopping gives them back to the agent's runtime.`
        : ["Bind it as the executor of the workspace and command groups (as the admin):", ...SERVED_GROUPS.map((group) => {
            const request = bindingRequest(group, url);
            return `  ${curl(toolgateUrl, request.method, request.path, request.body)}`;
          }), "(or run it with --bind and TOOLGATE_ADMIN_TOKEN set)"].join("\n"),
      "",
      "Then give agents a role with those groups and its workspaceRoot set to this directory, so toolgate's path rules",
      "check the same directory the module confines to:",
      `  ${curl(toolgateUrl, "POST", "/roles", { name: "developer", rolePrompt: "Work in the workspace.", toolGroups: [...SERVED_GROUPS], workspaceRoot: workspace.root })}`,
      "and switch off run_javascript, which this module does not run:",
      `  ${curl(toolgateUrl, "POST", "/tools/run_javascript/disable")}`,
      "",
      "Ctrl-C stops it.",
    ].join("\n"),
  );
}

main().catch((error) => {
  console.error(`\nThe workspace module could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
