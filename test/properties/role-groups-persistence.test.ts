import fc from "fast-check";
import { beforeAll, expect, inject, test } from "vitest";
import { RESERVED_GROUP_IDS } from "@toolgate/core/builtin";
import { Toolgate } from "@toolgate/core/toolgate";
import { ADMIN_TOKEN, SIGNING_KEY, api, testToolgate, tool } from "../support/toolgate";
import type { Api } from "../support/toolgate";

const NUM_RUNS = 100;

const MODULE_GROUPS = ["alpha", "Beta-2", "0", `g_${"x".repeat(62)}`];
const REGISTERED = [...RESERVED_GROUP_IDS, ...MODULE_GROUPS];
const ALL_SORTED = [...REGISTERED].sort();

let write: Api;
let read: Api;
let roleId: string;
let version: number;

beforeAll(async () => {
  const toolgate = await testToolgate();
  write = api(toolgate);
  for (const [index, id] of MODULE_GROUPS.entries()) {
    const put = await write("PUT", `/groups/${id}`, { body: { description: `Group ${id}.`, tools: [tool(`tool_${index}`)] } });
    expect(put.status).toBe(201);
  }
  const created = await write("POST", "/roles", { body: { name: "round-trip", rolePrompt: "Round trips.", toolGroups: ["alpha"] } });
  expect(created.status).toBe(201);
  roleId = created.body.id;
  version = created.body.version;
  // A second, cold instance on the same table reads back what the first one wrote.
  const second = new Toolgate({ table: toolgate.db.table, endpoint: inject("dynamoEndpoint"), adminToken: ADMIN_TOKEN, signingKey: SIGNING_KEY });
  await second.ready();
  read = api(second);
});

const dedupe = (groups: string[]) => [...new Set(groups)];

test("role-groups persistence round trip", { timeout: 120_000 }, async () => {
  await fc.assert(
    fc.asyncProperty(fc.oneof(fc.constant(null), fc.array(fc.constantFrom(...REGISTERED), { maxLength: 8 })), async (toolGroups) => {
      const usesAll = toolGroups === null || toolGroups.length === 0;

      const patched = await write("PATCH", `/roles/${roleId}`, { body: { toolGroups }, headers: { "if-match": `"${version}"` } });
      expect(patched.status).toBe(200);
      expect(patched.body.version).toBe(version + 1);
      version = patched.body.version;
      expect(patched.body.notice).toBe(usesAll ? "default_all_tool_groups" : undefined);

      const fetched = await read("GET", `/roles/${roleId}`);
      expect(fetched.status).toBe(200);
      expect(fetched.body.version).toBe(version);
      expect(fetched.headers.get("etag")).toBe(`"${version}"`);
      if (usesAll) {
        expect(fetched.body.toolGroups === null || (Array.isArray(fetched.body.toolGroups) && fetched.body.toolGroups.length === 0)).toBe(true);
        expect(fetched.body.effectiveToolGroups).toEqual(ALL_SORTED);
      } else {
        expect(fetched.body.toolGroups).toEqual(dedupe(toolGroups));
        expect(fetched.body.effectiveToolGroups).toEqual(dedupe(toolGroups));
      }
      expect(patched.body.toolGroups).toEqual(fetched.body.toolGroups);
    }),
    { numRuns: NUM_RUNS },
  );
});
