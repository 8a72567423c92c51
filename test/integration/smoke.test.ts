import { describe, expect, test } from "vitest";
import { api, testToolgate, tool } from "../support/toolgate";

describe("groups", () => {
  test("PUT /groups/:id - registers a group an admin can read back", async () => {
    const request = api(await testToolgate());
    const put = await request("PUT", "/groups/chrome", { body: { description: "Chrome", tools: [tool("open_tab")] } });
    expect(put.status).toBe(201);
    const list = await request("GET", "/groups");
    expect(list.body.groups.map((g: { id: string }) => g.id)).toContain("chrome");
  });
});
