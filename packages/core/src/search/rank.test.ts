import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { ToolDefinition } from "../tool/schema";
import { buildSearchIndex } from "./index-build";
import { searchTools } from "./rank";

const tool = (name: string, description: string, properties: Record<string, unknown> = {}): ToolDefinition => ({
  type: "function",
  function: { name, description, parameters: { type: "object", properties } },
});

const CATALOG = [
  { groupId: "issues", groupDescription: "Issue tracking", tools: [
    tool("create_issue", "Open a new issue in a repository.", { title: { type: "string", description: "Issue title" } }),
    tool("list_issues", "List issues in a repository, newest first."),
    tool("close_issue", "Close an issue as completed or not planned."),
  ] },
  { groupId: "pulls", groupDescription: "Pull requests", tools: [
    tool("merge_pull_request", "Merge a pull request.", { merge_method: { type: "string", enum: ["merge", "squash", "rebase"] } }),
    tool("list_pull_requests", "List pull requests in a repository."),
    tool("request_review", "Ask people to review a pull request."),
  ] },
  { groupId: "files", groupDescription: "Files in the workspace", tools: [
    tool("read_file", "Read a text file from the workspace."),
    tool("write_file", "Write a file to the workspace."),
    tool("delete_file", "Delete a file from the workspace."),
  ] },
  { groupId: "stars", groupDescription: "Stars", tools: [
    tool("star_repository", "Star a repository."),
    tool("unstar_repository", "Unstar a repository."),
  ] },
];

const entries = CATALOG.flatMap(({ groupId, groupDescription, tools }) => tools.map((definition) => ({ definition, groupId, groupDescription })));
const index = buildSearchIndex(entries);
const names = entries.map((entry) => entry.definition.function.name);

describe("searchTools", () => {
  test.each([
    ["open a bug ticket", "create_issue"],
    ["squash and merge my PR", "merge_pull_request"],
    ["remove a file", "delete_file"],
    ["show the open pull requests", "list_pull_requests"],
    ["bookmark this repo as a favorite", "star_repository"],
    ["ask for a review of my pull request", "request_review"],
  ])("searchTools - %s finds %s first", (query, expected) => {
    expect(searchTools(index, query, { limit: 3 })[0]?.name).toBe(expected);
  });

  test("searchTools - each hit names its group and scores are in descending order", () => {
    const hits = searchTools(index, "file in the workspace", { limit: 10 });
    expect(hits.map((hit) => hit.groupId)).toEqual(hits.map(() => "files"));
    expect(hits.map((hit) => hit.score)).toEqual([...hits.map((hit) => hit.score)].sort((a, b) => b - a));
  });

  test("searchTools - the limit is respected", () => {
    expect(searchTools(index, "repository", { limit: 2 })).toHaveLength(2);
    expect(searchTools(index, "repository", { limit: 0 })).toEqual([]);
  });

  test.each(["", "   ", "the of and", "!!!???", "12345", "zzyzx qwxv", "\u0000\uffff", "🙂".repeat(5000)])(
    "searchTools - %j returns nothing and does not throw",
    (query) => {
      expect(searchTools(index, query, { limit: 5 })).toEqual([]);
    },
  );

  test("searchTools - an empty index finds nothing", () => {
    expect(searchTools(buildSearchIndex([]), "merge", { limit: 5 })).toEqual([]);
  });

  test("searchTools - equal scores are ordered by name", () => {
    const twins = buildSearchIndex(
      ["zeta_probe", "alpha_probe", "mid_probe"].map((name) => ({ definition: tool(name, "Probe the thing."), groupId: "g", groupDescription: "" })),
    );
    const hits = searchTools(twins, "thing", { limit: 5 });
    expect(new Set(hits.map((hit) => hit.score)).size).toBe(1);
    expect(hits.map((hit) => hit.name)).toEqual(["alpha_probe", "mid_probe", "zeta_probe"]);
  });

  test("searchTools - a disallowed tool is never returned, whatever the query and the allowed set", () => {
    const words = ["merge", "file", "issue", "pull request", "star", "repository", "review", "delete", "list", "the", "workspace", "open"];
    fc.assert(
      fc.property(
        fc.subarray(names),
        fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 20 }),
        (allowedNames, queryWords, limit) => {
          const allowedSet = new Set(allowedNames);
          const hits = searchTools(index, queryWords.join(" "), { limit, allowed: (name) => allowedSet.has(name) });
          expect(hits.length).toBeLessThanOrEqual(limit);
          for (const hit of hits) expect(allowedSet.has(hit.name)).toBe(true);
        },
      ),
    );
  });

  test("searchTools - filtering keeps the order of the allowed tools among themselves", () => {
    const all = searchTools(index, "repository pull request issue", { limit: 20 }).map((hit) => hit.name);
    const allowed = new Set(["list_issues", "merge_pull_request", "unstar_repository"]);
    const filtered = searchTools(index, "repository pull request issue", { limit: 20, allowed: (name) => allowed.has(name) });
    expect(filtered.map((hit) => hit.name)).toEqual(all.filter((name) => allowed.has(name)));
  });

  test("searchTools - the index cannot be changed through its arrays", () => {
    expect(Object.isFrozen(index)).toBe(true);
    expect(Object.isFrozen(index.names)).toBe(true);
  });
});
