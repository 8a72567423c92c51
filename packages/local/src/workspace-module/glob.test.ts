import { expect, test } from "vitest";
import { globMatcher } from "./glob";

test("globMatcher - *, ?, **, classes and braces, a pattern without a slash matching the name", () => {
  const table: Array<[string, string, boolean]> = [
    ["**/*.ts", "a.ts", true],
    ["**/*.ts", "src/deep/a.ts", true],
    ["**/*.ts", "src/a.tsx", false],
    ["src/*.ts", "src/a.ts", true],
    ["src/*.ts", "src/deep/a.ts", false],
    ["src/**", "src/deep/a.ts", true],
    ["src/**/a.ts", "src/a.ts", true],
    ["*.ts", "src/deep/a.ts", true],
    ["*.ts", "src/deep/a.js", false],
    ["?.md", "a.md", true],
    ["?.md", "ab.md", false],
    ["[ab].txt", "b.txt", true],
    ["[!ab].txt", "b.txt", false],
    ["[!ab].txt", "c.txt", true],
    ["*.{ts,js}", "x/y.js", true],
    ["*.{ts,js}", "x/y.css", false],
    ["a+b(1).txt", "a+b(1).txt", true],
    ["a.txt", "abtxt", false],
  ];
  for (const [pattern, path, matches] of table) expect(globMatcher(pattern)(path), `${pattern} ~ ${path}`).toBe(matches);
});
