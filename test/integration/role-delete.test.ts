import { beforeAll, expect, test } from "vitest";
import type { Toolgate } from "@toolgate/core/toolgate";
import { api, testToolgate } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { createAgent, createRole, secondInstance, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;
let other: Api;

beforeAll(async () => {
  toolgate = await testToolgate();
  request = api(toolgate);
  other = api(await secondInstance(toolgate));
});

test("DELETE /roles/:id - 204, then the role is gone and its name free again", async () => {
  const role = await createRole(request, { name: unique("Temp") });
  const deleted = await request("DELETE", `/roles/${role.id}`);
  expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
  expect((await request("GET", `/roles/${role.id}`)).status).toBe(404);
  expect((await request("GET", "/roles")).body.roles.map((r: { id: string }) => r.id)).not.toContain(role.id);
  await createRole(request, { name: role.name.toUpperCase() });
  const again = await request("DELETE", `/roles/${role.id}`);
  expect(again.status).toBe(404);
  expect(again.body.error).toBe("role_not_found");
  const bound = await request("POST", "/agents", { body: { roleId: role.id } });
  expect(bound.status).toBe(400);
  expect(bound.body.error).toBe("role_not_found");
});

test("DELETE /roles/:id - 409 role_in_use with the number of active agents, until they are terminated; root is refused; admin only", async () => {
  const role = await createRole(request, { name: unique("Busy") });
  const [first, second] = [await createAgent(request, role.id), await createAgent(request, role.id)];
  const reissued = await request("POST", `/agents/${second.agent.id}/token`);
  expect(reissued.status).toBe(201);
  const refused = await request("DELETE", `/roles/${role.id}`);
  expect(refused.status).toBe(409);
  expect(refused.body).toMatchObject({ error: "role_in_use", activeAgents: 2 });
  expect(refused.body.message).toContain("2 active agents");
  expect((await request("DELETE", `/roles/${role.id}`, { token: first.token })).status).toBe(403);

  expect((await request("DELETE", `/agents/${first.agent.id}`)).status).toBe(200);
  expect((await request("DELETE", `/roles/${role.id}`)).body).toMatchObject({ error: "role_in_use", activeAgents: 1 });
  expect((await request("DELETE", `/agents/${second.agent.id}`)).status).toBe(200);
  expect((await request("DELETE", `/roles/${role.id}`)).status).toBe(204);
  expect((await request("GET", `/agents/${first.agent.id}`)).body).toMatchObject({ roleId: role.id, status: "terminated" });

  const root = await request("DELETE", "/roles/root");
  expect(root.status).toBe(409);
  expect(root.body.error).toBe("root_role_fixed");
});

test("DELETE /roles/:id - racing agent creation on two processes, no active agent ever ends up bound to a deleted role", async () => {
  for (let round = 0; round < 6; round++) {
    const role = await createRole(request, { name: unique("Raced") });
    const creates = Array.from({ length: 8 }, (_, i) => (i % 2 ? other : request)("POST", "/agents", { body: { roleId: role.id } }));
    const deletes = [request("DELETE", `/roles/${role.id}`), other("DELETE", `/roles/${role.id}`)];
    const [created, removed] = await Promise.all([Promise.all(creates), Promise.all(deletes)]);
    for (const response of [...created, ...removed]) expect([201, 204, 400, 404, 409], JSON.stringify(response.body)).toContain(response.status);
    const landed = created.filter((response) => response.status === 201);
    const roleGone = (await request("GET", `/roles/${role.id}`)).status === 404;
    if (roleGone) {
      expect(landed, "agents created in a role that was deleted").toEqual([]);
      expect(removed.filter((response) => response.status === 204)).toHaveLength(1);
    } else {
      expect(landed.length).toBeGreaterThan(0);
      for (const response of removed) expect(response.body).toMatchObject({ error: "role_in_use" });
      const listed = await request("GET", `/agents?roleId=${role.id}&status=active&limit=100`);
      expect(listed.body.agents).toHaveLength(landed.length);
      expect((await request("DELETE", `/roles/${role.id}`)).body.activeAgents).toBe(landed.length);
    }
    for (const response of created.filter((r) => r.status !== 201)) expect(response.body.error).toBe("role_not_found");
  }
}, 60_000);
