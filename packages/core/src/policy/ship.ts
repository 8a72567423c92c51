import { ConditionFailedError } from "../error";
import type { Db } from "../dynamo/client";
import { putCedarPolicyItem, shippedPoliciesMarkerItem } from "../dynamo/catalog";
import type { Catalog } from "../group/catalog";
import { readPolicy } from "./cedar/read";
import { storedPolicy } from "./manage";
import { SHIPPED_POLICIES } from "./shipped";

/** Writes the shipped policies once, with a marker in the same transaction: a policy an operator deleted is not written again. */
export async function shipPolicies(db: Db, catalog: Catalog, now: string): Promise<number> {
  const read = await Promise.all(
    SHIPPED_POLICIES.map(async ({ id, input }) => {
      const cedar = "cedar" in input ? input.cedar : "";
      const parsed = await readPolicy(cedar);
      if (!parsed.ok) throw new Error(`The shipped policy "${id}" does not parse: ${parsed.problems.map((problem) => problem.message).join("; ")}`);
      return { id, input, cedar, read: parsed.read };
    }),
  );
  return catalog
    .change((_manager, snapshot) => {
      const missing = read.filter(({ id }) => !snapshot.policies.has(id));
      const items = missing.map((policy) => putCedarPolicyItem(db, storedPolicy({ ...policy, ifMatch: undefined, now, shipped: true, previous: undefined })));
      return { items: [...items, shippedPoliciesMarkerItem(db)], result: missing.length };
    })
    .catch((error: unknown) => {
      if (error instanceof ConditionFailedError) return 0;
      throw error;
    });
}
