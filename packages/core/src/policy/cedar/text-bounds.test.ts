import { expect, test } from "vitest";
import { MAX_TEXT_NESTING, MAX_TEXT_OPERATORS, textBoundsProblem } from "./text-bounds";

const when = (condition: string) => `forbid (principal, action, resource) when { ${condition} };`;

test(`textBoundsProblem - brackets past ${MAX_TEXT_NESTING} levels (the condition's braces counting) are a problem naming where they went too deep`, () => {
  const inside = MAX_TEXT_NESTING - 1;
  expect(textBoundsProblem(when(`${"(".repeat(inside)}true${")".repeat(inside)}`))).toBeUndefined();
  const problem = textBoundsProblem(when(`${"[".repeat(inside + 1)}1${"]".repeat(inside + 1)} == 1`));
  expect(problem).toMatchObject({ message: expect.stringContaining(`more than ${MAX_TEXT_NESTING} levels`), line: 1 });
  expect(textBoundsProblem(when(`${"(".repeat(10_000)}true`))?.message).toContain("nest more than");
});

test(`textBoundsProblem - more than ${MAX_TEXT_OPERATORS} operators are a problem; a run of operator characters counts once`, () => {
  expect(textBoundsProblem(when(Array(MAX_TEXT_OPERATORS + 2).fill("true").join(" || ")))?.message).toContain(`more than ${MAX_TEXT_OPERATORS} operators`);
  expect(textBoundsProblem(when(`context${".a".repeat(MAX_TEXT_OPERATORS + 1)}`))?.message).toContain("operators");
  expect(textBoundsProblem(when(`${"if true then ".repeat(MAX_TEXT_OPERATORS + 1)}true${" else false".repeat(MAX_TEXT_OPERATORS + 1)}`))?.message).toContain("operators");
  expect(textBoundsProblem(when(Array(MAX_TEXT_OPERATORS / 2 - 1).fill("true").join(" && ")))).toBeUndefined();
});

test("textBoundsProblem - what is inside a string literal or a comment is no bracket and no operator", () => {
  const quoted = `"${"(".repeat(100)}\\"${"&&".repeat(1000)}"`;
  expect(textBoundsProblem(when(`context.command.line == ${quoted}`))).toBeUndefined();
  expect(textBoundsProblem(`// ${"(".repeat(100)} ${"|| ".repeat(1000)}\n${when("true")}`)).toBeUndefined();
  expect(textBoundsProblem(`// a comment ending the text ${"(".repeat(100)}`)).toBeUndefined();
});
