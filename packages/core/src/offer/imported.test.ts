import { expect, test } from "vitest";
import { offersFrom } from "./imported";

test("offersFrom - prompts take the group's toolPrefix; resources and templates keep what MCP lists of them", () => {
  const read = offersFrom("gh", {
    resources: [{ uri: "file:///a", name: "a", _meta: { x: 1 }, icons: [] }],
    resourceTemplates: [{ uriTemplate: "repo://{owner}/{name}", name: "repo" }],
    prompts: [{ name: "triage", arguments: [{ name: "issue", required: true }] }],
  });
  expect(read).toEqual({
    offers: {
      resources: [{ uri: "file:///a", name: "a" }],
      resourceTemplates: [{ uriTemplate: "repo://{owner}/{name}", name: "repo" }],
      prompts: [{ name: "gh_triage", arguments: [{ name: "issue", required: true }] }],
    },
  });
});

test("offersFrom - a prompt name that is not valid once prefixed, an entry that is not MCP's, or too many of a kind is a problem", () => {
  const read = offersFrom(undefined, { resources: [{ name: "no uri" }], resourceTemplates: [], prompts: [{ name: "has space" }] });
  expect("issues" in read && read.issues.map((issue) => issue.path)).toEqual(["resources.0", "prompts.0.name"]);
  const many = offersFrom(undefined, { resources: Array.from({ length: 501 }, (_, index) => ({ uri: `x://${index}`, name: `${index}` })), resourceTemplates: [], prompts: [] });
  expect("issues" in many && many.issues[0]).toEqual({ path: "resources", message: "the server lists 501 resources; a group can have at most 500" });
});
