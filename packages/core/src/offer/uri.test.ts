import { expect, test } from "vitest";
import { agentUri, expandsTo, upstreamOf } from "./uri";

test("agentUri / upstreamOf - the server's URI travels whole under toolgate://<group>/, and back", () => {
  for (const upstream of ["file:///README.md", "https://example.com/a?b=c#d", "notes://x/today", "toolgate://other/y"]) {
    expect(upstreamOf(agentUri("docs", upstream))).toEqual({ groupId: "docs", upstream });
  }
});

test.each([["file:///README.md"], ["toolgate://"], ["toolgate:///x"], ["toolgate://bad.group/x"], ["toolgate://docs/"], ["toolgate://docs"]])(
  "upstreamOf - %s is no URI toolgate shows",
  (uri) => expect(upstreamOf(uri)).toBeUndefined(),
);

test.each([
  ["notes://{topic}/today", "notes://cedar/today", true],
  ["notes://{topic}/today", "notes://a/b/today", false],
  ["notes://{topic}/today", "notes://cedar/tomorrow", false],
  ["file:///{+path}", "file:///a/b/c.txt", true],
  ["search://items{?q,limit}", "search://items?q=x&limit=3", true],
  ["search://items{?q,limit}", "search://items", true],
  ["users/{id}", "users/../admin", false],
  ["a.b{x}", "aXbY", false],
  ["broken{", "broken{", false],
])("expandsTo - %s expands to %s: %s", (template, uri, expected) => expect(expandsTo(template, uri)).toBe(expected));
