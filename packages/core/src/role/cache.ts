import { BoundedMap } from "../bounded";
import type { Db } from "../dynamo/client";
import { getRole } from "../dynamo/roles";
import type { Role } from "./schema";

/** Roles a warm process has read; every admission checks the cached version against the table in the same round trip. */
export class RoleCache {
  private readonly roles = new BoundedMap<string, Role>();

  constructor(private readonly db: Db) {}

  peek(id: string): Role | undefined {
    return this.roles.get(id);
  }

  async get(id: string): Promise<Role | undefined> {
    const cached = this.roles.get(id);
    if (cached) return cached;
    const role = await getRole(this.db, id);
    if (role) this.roles.set(id, role);
    return role;
  }

  remember(role: Role) {
    this.roles.set(role.id, role);
  }

  forget(id: string) {
    this.roles.delete(id);
  }

  clear() {
    this.roles.clear();
  }
}
