// A module's group through toolgate's admin API (PUT and DELETE /groups/:id), for defineModule and stdioModule alike.

/** Where toolgate is: `url`, else TOOLGATE_URL; `hint` tells how to name it when neither is set. */
export function toolgateAt(moduleId: string, url: string | undefined, hint: string): string {
  const found = url ?? process.env.TOOLGATE_URL;
  if (!found) throw new Error(`The module "${moduleId}" does not know where toolgate is: ${hint}`);
  return found;
}

const groupUrl = (moduleId: string, toolgateUrl: string) => new URL(`/groups/${encodeURIComponent(moduleId)}`, toolgateUrl);

async function answered(moduleId: string, what: string, response: Response, fine: (status: number) => boolean) {
  if (fine(response.status)) return;
  const answer = (await response.json().catch(() => ({}))) as { message?: string };
  throw new Error(`toolgate did not ${what} the module "${moduleId}" (HTTP ${response.status}): ${answer.message ?? response.statusText}`);
}

/** Registers the module's group (its description, executor and the rest of PUT /groups/:id's body) as an admin. */
export async function putGroup(moduleId: string, toolgateUrl: string, adminToken: string, group: object): Promise<void> {
  const response = await fetch(groupUrl(moduleId, toolgateUrl), {
    method: "PUT",
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: JSON.stringify(group),
  });
  await answered(moduleId, "register", response, (status) => status === 200 || status === 201);
}

/** Removes the module's group as an admin; a group already gone is fine. */
export async function deleteGroup(moduleId: string, toolgateUrl: string, adminToken: string): Promise<void> {
  const response = await fetch(groupUrl(moduleId, toolgateUrl), { method: "DELETE", headers: { authorization: `Bearer ${adminToken}` } });
  await answered(moduleId, "remove", response, (status) => status === 204 || status === 404);
}
