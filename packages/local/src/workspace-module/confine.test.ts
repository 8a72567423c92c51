import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { confine, openWorkspace, PathRefused, relativeName } from "./confine";
import type { Workspace } from "./confine";

let base: string;
let outside: string;
let workspace: Workspace;

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "confine-")));
  outside = join(base, "outside");
  await mkdir(join(base, "root", "src"), { recursive: true });
  await mkdir(outside);
  await writeFile(join(outside, "secret.txt"), "secret");
  await writeFile(join(base, "root", "src", "a.ts"), "a");
  await symlink(join(outside, "secret.txt"), join(base, "root", "to-secret"));
  await symlink(outside, join(base, "root", "to-outside"));
  await symlink(join(outside, "not-yet.txt"), join(base, "root", "dangling-out"));
  await symlink(join(base, "root", "src"), join(base, "root", "to-src"));
  await symlink(join(base, "root", "loop-b"), join(base, "root", "loop-a"));
  await symlink(join(base, "root", "loop-a"), join(base, "root", "loop-b"));
  await symlink(join(base, "root"), join(base, "root-link"));
  workspace = await openWorkspace(join(base, "root-link"));
});

afterAll(() => rm(base, { recursive: true, force: true }));

const refusal = (path: string) => confine(workspace, path).then(() => "allowed", (error: Error) => (error instanceof PathRefused ? error.message : `failed: ${error.message}`));

test("openWorkspace - the root is its real path, a missing root or a file is refused", async () => {
  expect(workspace.root).toBe(join(base, "root"));
  await expect(openWorkspace(join(base, "missing"))).rejects.toThrow(/does not exist/);
  await expect(openWorkspace(join(outside, "secret.txt"))).rejects.toThrow(/not a directory/);
});

test("confine - paths inside the root resolve to their real path, new files included, and name themselves relative to the root", async () => {
  for (const [path, real] of [
    ["src/a.ts", "src/a.ts"],
    ["./src/../src/a.ts", "src/a.ts"],
    [".", "."],
    ["", "."],
    ["new/dir/file.txt", "new/dir/file.txt"],
    [join(base, "root", "src", "a.ts"), "src/a.ts"],
    ["to-src/a.ts", "src/a.ts"],
    ["to-src/new.ts", "src/new.ts"],
  ] as const)
    expect(relativeName(workspace, await confine(workspace, path)), path).toBe(real);
});

test("confine - escapes are refused with the path named: .., absolute paths outside, ~, NUL, and symbolic links that lead outside", async () => {
  const table: Array<[string, RegExp]> = [
    ["../outside/secret.txt", /leads outside the workspace root/],
    ["src/../../outside/secret.txt", /leads outside the workspace root/],
    ["/etc/passwd", /leads outside the workspace root/],
    [join(base, "root-sibling"), /leads outside the workspace root/],
    ["~/.ssh/id_rsa", /home directory/],
    ["src/a.ts\0.png", /NUL byte/],
    ["to-secret", /symbolic link in it leads outside/],
    ["to-outside/secret.txt", /symbolic link in it leads outside/],
    ["to-outside/new-file.txt", /symbolic link in it leads outside/],
    ["to-outside/new/dir/file.txt", /symbolic link in it leads outside/],
    ["dangling-out", /symbolic link in it leads outside/],
    ["loop-a", /lead round in a loop/],
  ];
  for (const [path, reason] of table) {
    const message = await refusal(path);
    expect(message, path).toMatch(reason);
    expect(message, path).toContain(`The workspace module refused the path ${JSON.stringify(path)}`);
  }
});
