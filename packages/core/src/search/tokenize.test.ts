import { describe, expect, test } from "vitest";
import { splitWords, stem, tokenize } from "./tokenize";

describe("splitWords", () => {
  test.each([
    ["get_job_logs", ["get", "job", "logs"]],
    ["list-pull-requests", ["list", "pull", "requests"]],
    ["perPage", ["per", "page"]],
    ["HTTPRequest", ["http", "request"]],
    ["XMLHttpRequest", ["xml", "http", "request"]],
    ["commentNodeID", ["comment", "node", "id"]],
    ["sha256Hash", ["sha", "256", "hash"]],
    ["find PRs and URLs", ["find", "prs", "and", "urls"]],
    ["  über--naïve__x ", ["ber", "na", "ve", "x"]],
    ["", []],
  ])("splitWords - %s", (text, words) => {
    expect(splitWords(text)).toEqual(words);
  });
});

describe("stem", () => {
  test.each([
    ["issues", "issue"],
    ["branches", "branch"],
    ["repositories", "repository"],
    ["replies", "reply"],
    ["replied", "reply"],
    ["status", "status"],
    ["access", "access"],
  ])("stem - %s becomes %s up to a final e", (word, expected) => {
    expect(stem(word)).toBe(stem(expected));
  });

  test("stem - the forms of one verb meet", () => {
    for (const forms of [
      ["create", "creates", "created", "creating", "creation"],
      ["delete", "deleted", "deleting", "deletion"],
      ["merge", "merged", "merging", "merges"],
      ["star", "starred", "starring", "stars"],
      ["run", "running", "runs"],
      ["add", "added", "adding", "adds"],
      ["review", "reviewer", "reviewers", "reviewed"],
    ])
      expect(new Set(forms.map(stem)), forms.join(" ")).toHaveLength(1);
  });

  test("stem - short words and words with digits are left alone", () => {
    expect(["is", "has", "api", "v2s", "sha256"].map(stem)).toEqual(["is", "has", "api", "v2s", "sha256"]);
  });
});

describe("tokenize", () => {
  test("tokenize - drops stop words, numbers and single letters, spells out abbreviations", () => {
    expect(tokenize("Merge the PR #42 in my repo")).toEqual(["merg", "pull", "request", "repository"]);
  });

  test("tokenize - words that are also Object.prototype keys are ordinary words", () => {
    expect(tokenize("constructor toString __proto__ hasOwnProperty valueOf")).toEqual(["constructor", "string", "proto", "property", "valu"]);
  });
});
