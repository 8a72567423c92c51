import { existsSync, realpathSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** toolgate's repository, whose `.toolgate` is the data directory `npm start` uses unless TOOLGATE_DATA_DIR says otherwise. */
const REPOSITORY_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

const realPath = (path: string) => (existsSync(path) ? realpathSync(path) : path);
const within = (parent: string, path: string) => path === parent || path.startsWith(parent.endsWith(sep) ? parent : `${parent}${sep}`);

/** toolgate's data directories on this machine (where its admin token is): the one toolgate is told to use, and the repository's own. */
export function toolgateDataDirs(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string[] {
  const repositoryRoot = realPath(REPOSITORY_ROOT).replace(/\/+$/, "");
  const named = realPath(resolve(cwd, env.TOOLGATE_DATA_DIR || ".toolgate"));
  return [...new Set([named, join(repositoryRoot, ".toolgate")])];
}

/**
 * Why the module may not serve `root`, or undefined: it holds one of toolgate's data directories (or the repository
 * whose data directory it is, where toolgate may create it), or lies inside one. Whether the directory exists yet
 * does not matter: toolgate creates it when it first starts.
 */
export function dataDirRefusal(root: string, dataDirs: readonly string[]): string | undefined {
  for (const dataDir of dataDirs) {
    if (within(root, dataDir))
      return `${root} holds toolgate's data directory ${dataDir} (its admin token among it): serve a directory that does not contain it.`;
    if (within(dataDir, root)) return `${root} is inside toolgate's data directory ${dataDir} (its admin token among it): serve a directory outside it.`;
  }
  return undefined;
}
