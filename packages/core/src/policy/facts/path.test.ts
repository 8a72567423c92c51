import fc from "fast-check";
import { expect, test } from "vitest";
import { isWithin, normaliseRoot, resolvePath, workspaceRootProblem } from "./path";

test("workspaceRootProblem - an absolute root of at most 4096 characters without NUL is accepted", () => {
  for (const root of ["/", "/work", "/work/a/", "//work/./a/..", `/${"a".repeat(4095)}`])
    expect(workspaceRootProblem(root), root.slice(0, 40)).toBeNull();
});

test("workspaceRootProblem - a relative, empty, too long or NUL-holding root is refused with a sentence", () => {
  const cases: Array<[string, string]> = [
    ["", "is not an absolute path"],
    ["work", 'The workspace root "work" is not an absolute path; it must start with "/".'],
    ["./work", "is not an absolute path"],
    ["~/work", "is not an absolute path"],
    [`/${"a".repeat(4096)}`, "The workspace root is 4097 characters long; at most 4096 are allowed."],
    ["/work\0/a", "NUL character"],
  ];
  for (const [root, problem] of cases) expect(workspaceRootProblem(root), JSON.stringify(root.slice(0, 40))).toContain(problem);
});

test("normaliseRoot - resolves dots and repeated or trailing slashes; / stays /", () => {
  const cases: Array<[string, string]> = [
    ["/", "/"],
    ["//", "/"],
    ["/work/", "/work"],
    ["/work//a///", "/work/a"],
    ["/work/./a/.", "/work/a"],
    ["/work/a/../b", "/work/b"],
    ["/..", "/"],
    ["/../../work", "/work"],
  ];
  for (const [root, expected] of cases) expect(normaliseRoot(root), root).toBe(expected);
});

test("isWithin - the root itself and paths below it, never a sibling sharing a prefix", () => {
  const cases: Array<[string, string, boolean]> = [
    ["/work/a", "/work/a", true],
    ["/work/a", "/work/a/b", true],
    ["/work/a", "/work/a/", true],
    ["/work/a/", "/work/a/b", true],
    ["/work/a", "/work/ab", false],
    ["/work/a", "/work", false],
    ["/work/a", "/", false],
    ["/work/a", "/work/a/../b", false],
    ["/work/a", "/work/b/../a/c", true],
    ["/work/a", "work/a/b", false],
    ["/work/a", "~/x", false],
    ["/", "/", true],
    ["/", "/etc/passwd", true],
  ];
  for (const [root, path, expected] of cases) expect(isWithin(root, path), `${root} ∋ ${path}`).toBe(expected);
});

const ROOT = "/work/a";

test("resolvePath - relative paths join the root and are normalised", () => {
  const cases: Array<[string, string, boolean]> = [
    ["", "/work/a", false],
    [".", "/work/a", false],
    ["./", "/work/a", false],
    ["src/index.ts", "/work/a/src/index.ts", false],
    ["a/./b//c", "/work/a/a/b/c", false],
    ["a/b/", "/work/a/a/b", false],
    ["a/b//", "/work/a/a/b", false],
    ["a/../b", "/work/a/b", false],
    ["../", "/work", true],
    ["../a/x", "/work/a/x", false],
    ["../ab/x", "/work/ab/x", true],
    ["./a/../../b", "/work/b", true],
    ["../../etc/passwd", "/etc/passwd", true],
    ["../../../../../../etc", "/etc", true],
  ];
  for (const [value, path, outsideWorkspace] of cases)
    expect(resolvePath(value, ROOT), JSON.stringify(value)).toEqual({ path, outsideWorkspace });
});

test("resolvePath - absolute paths are normalised and checked against the root", () => {
  const cases: Array<[string, string, boolean]> = [
    ["/work/a/src", "/work/a/src", false],
    ["/work/a/", "/work/a", false],
    ["/work/a/../../etc/passwd", "/etc/passwd", true],
    ["//etc/passwd", "/etc/passwd", true],
    ["//work//a//x", "/work/a/x", false],
    ["/work/ab", "/work/ab", true],
    ["/../../etc", "/etc", true],
    ["/..", "/", true],
    ["/", "/", true],
  ];
  for (const [value, path, outsideWorkspace] of cases)
    expect(resolvePath(value, ROOT), JSON.stringify(value)).toEqual({ path, outsideWorkspace });
});

test("resolvePath - a root of / contains every absolute path", () => {
  for (const value of ["/etc/passwd", "../../x", "/", "a/b"]) expect(resolvePath(value, "/").outsideWorkspace, value).toBe(false);
  expect(resolvePath("../../x", "/").path).toBe("/x");
});

test("resolvePath - a root that is not normalised is read as its normal form", () => {
  expect(resolvePath("x", "/work/a/")).toEqual({ path: "/work/a/x", outsideWorkspace: false });
  expect(resolvePath("/work/a/x", "//work/./a/")).toEqual({ path: "/work/a/x", outsideWorkspace: false });
});

test("resolvePath - ~ paths keep their tilde, are normalised after it and are outside any workspace", () => {
  const cases: Array<[string, string]> = [
    ["~", "~"],
    ["~/", "~"],
    ["~/.", "~"],
    ["~/.ssh/id_rsa", "~/.ssh/id_rsa"],
    ["~/a/../.ssh", "~/.ssh"],
    ["~//a///b/", "~/a/b"],
    ["~/../other", "~/../other"],
    ["~root", "~root"],
    ["~root/.ssh/../.bashrc", "~root/.bashrc"],
  ];
  for (const [value, path] of cases) {
    expect(resolvePath(value, ROOT), JSON.stringify(value)).toEqual({ path, outsideWorkspace: true });
    expect(resolvePath(value, "/"), JSON.stringify(value)).toEqual({ path, outsideWorkspace: true });
    expect(resolvePath(value, null), JSON.stringify(value)).toEqual({ path, outsideWorkspace: false });
  }
});

test("resolvePath - without a root, relative paths stay relative and nothing is outside", () => {
  const cases: Array<[string, string]> = [
    ["", "."],
    [".", "."],
    ["./", "."],
    ["a/./b//c", "a/b/c"],
    ["a/b/", "a/b"],
    ["./a/../../b", "../b"],
    ["../../x", "../../x"],
    ["/work/a/../../etc/passwd", "/etc/passwd"],
    ["//etc", "/etc"],
  ];
  for (const [value, path] of cases)
    expect(resolvePath(value, null), JSON.stringify(value)).toEqual({ path, outsideWorkspace: false });
});

test("resolvePath - a NUL is an ordinary character and nothing throws", () => {
  expect(resolvePath("a\0b/../c", ROOT)).toEqual({ path: "/work/a/c", outsideWorkspace: false });
  expect(resolvePath("\0", ROOT)).toEqual({ path: "/work/a/\0", outsideWorkspace: false });
  expect(resolvePath("/etc/\0", null)).toEqual({ path: "/etc/\0", outsideWorkspace: false });
  expect(resolvePath("~\0/x", ROOT)).toEqual({ path: "~\0/x", outsideWorkspace: true });
});

const segment = fc.constantFrom("a", "b", "..", ".", "");
const relativePath = fc
  .array(segment, { maxLength: 12 })
  .map((segments) => segments.join("/"))
  .filter((path) => !path.startsWith("/"));
const root = fc
  .array(fc.constantFrom("a", "b", "work", "x y"), { maxLength: 4 })
  .map((segments) => `/${segments.join("/")}`);

/** The directory a shell would reach by walking the segments from the root, as a stack of names. */
function walk(rootPath: string, path: string): string {
  const stack = rootPath.split("/").filter((name) => name !== "");
  for (const name of path.split("/")) {
    if (name === "" || name === ".") continue;
    if (name === "..") stack.pop();
    else stack.push(name);
  }
  return `/${stack.join("/")}`;
}

test("resolvePath - property: a relative path is within the root or marked outside, and is fully normalised", () => {
  fc.assert(
    fc.property(root, relativePath, (rootPath, value) => {
      const { path, outsideWorkspace } = resolvePath(value, rootPath);
      expect(isWithin(rootPath, path) || outsideWorkspace).toBe(true);
      expect(outsideWorkspace).toBe(!isWithin(rootPath, path));
      expect(path).not.toContain("/./");
      expect(path).not.toContain("//");
      expect(path.split("/")).not.toContain("..");
      expect(path.split("/")).not.toContain(".");
      expect(path).toBe(walk(rootPath, value));
    }),
  );
});

test("resolvePath - property: without a root, leading .. are kept and none follows a name", () => {
  fc.assert(
    fc.property(relativePath, (value) => {
      const { path, outsideWorkspace } = resolvePath(value, null);
      expect(outsideWorkspace).toBe(false);
      const names = path.split("/");
      const firstName = names.findIndex((name) => name !== "..");
      if (firstName !== -1) expect(names.slice(firstName)).not.toContain("..");
      expect(path).not.toContain("//");
      expect(path === "." || !names.includes(".")).toBe(true);
    }),
  );
});
