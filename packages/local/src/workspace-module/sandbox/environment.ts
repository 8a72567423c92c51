/** Variables no sandboxed process gets from the module's own: toolgate's (the admin token among them) and secret-looking ones. */
export const HIDDEN_VARIABLE = /^TOOLGATE_|token|secret|passw|credential|api_?key|private_?key/i;
/**
 * Variables that describe the module's own run, not the sandbox: npm's for `npm run workspace` and the shell's
 * directories (they name toolgate's repository, which the sandbox does not hold), and the host's proxies (the
 * sandbox has its own, or none).
 */
const OUTER_VARIABLE = /^(npm_|INIT_CWD$|PWD$|OLDPWD$|_$)|_proxy$/i;

/** HOME inside the sandbox: an empty directory on its private /tmp. */
export const SANDBOX_HOME = "/tmp/home";

/** The proxy variables that send a sandboxed command's HTTP and HTTPS through the sandbox's bridge, and nothing around it. */
export const proxyVariables = (proxyUrl: string) => ({
  HTTP_PROXY: proxyUrl,
  HTTPS_PROXY: proxyUrl,
  ALL_PROXY: proxyUrl,
  http_proxy: proxyUrl,
  https_proxy: proxyUrl,
  all_proxy: proxyUrl,
  NO_PROXY: "",
  no_proxy: "",
});

/** What the sandbox sets itself: its PATH, HOME, TMPDIR, LANG and TERM. */
export const ownVariables = (path: string, lang = process.env.LANG) => ({ PATH: path, HOME: SANDBOX_HOME, TMPDIR: "/tmp", LANG: lang || "C.UTF-8", TERM: "dumb" });

/** The sandbox's environment: the module's own variables less the hidden and outer ones, and its own (ownVariables). */
export function sandboxEnvironment(outer: NodeJS.ProcessEnv, path: string): Record<string, string> {
  const passed = Object.entries(outer).filter((entry): entry is [string, string] => entry[1] !== undefined && !HIDDEN_VARIABLE.test(entry[0]) && !OUTER_VARIABLE.test(entry[0]));
  return { ...Object.fromEntries(passed), ...ownVariables(path, outer.LANG) };
}
