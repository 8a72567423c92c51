import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";

/** The top-level directories of programs and libraries, shown as they are on the host: a symbolic link or read-only. */
const SYSTEM_DIRECTORIES = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];
/** What of /etc programs need (the loader, users and groups by name, name resolution, certificates, the time zone). */
const ETC_ENTRIES = [
  "alternatives",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "passwd",
  "group",
  "nsswitch.conf",
  "hosts",
  "ssl",
  "ca-certificates",
  "ca-certificates.conf",
  "pki",
  "localtime",
  "timezone",
  "mime.types",
  "gitconfig",
  "os-release",
  "protocols",
  "services",
];
const STANDARD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** What the sandbox shows of this machine, read once at start. */
export type System = {
  /** bwrap's arguments that show the system read-only: /usr, the top-level directories, the /etc entries that exist. */
  mounts: string[];
  /** The node that runs the sandbox's own programs (this process's, its installation read-only if outside /usr). */
  node: string;
  /** PATH inside the sandbox. */
  path: string;
  /** Whether this bwrap can forbid new user namespaces inside (bubblewrap 0.8 and later). */
  disablesUserNamespaces: boolean;
};

function topLevelMount(directory: string): string[] {
  const info = lstatSync(directory, { throwIfNoEntry: false });
  if (!info) return [];
  return info.isSymbolicLink() ? ["--symlink", readlinkSync(directory), directory] : ["--ro-bind", directory, directory];
}

export function readSystem(bwrap: string): System {
  const node = realpathSync(process.execPath);
  const nodeInstallation = dirname(dirname(node));
  const nodeOutsideUsr = !node.startsWith("/usr/");
  const help = spawnSync(bwrap, ["--help"], { encoding: "utf8" });
  return {
    mounts: [
      "--ro-bind", "/usr", "/usr",
      ...SYSTEM_DIRECTORIES.flatMap(topLevelMount),
      ...ETC_ENTRIES.map((entry) => join("/etc", entry)).filter((path) => existsSync(path)).flatMap((path) => ["--ro-bind", path, path]),
      ...(nodeOutsideUsr ? ["--ro-bind", nodeInstallation, nodeInstallation] : []),
    ],
    node,
    path: nodeOutsideUsr ? `${dirname(node)}:${STANDARD_PATH}` : STANDARD_PATH,
    disablesUserNamespaces: `${help.stdout}`.includes("--disable-userns"),
  };
}
