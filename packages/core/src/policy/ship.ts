import { createHash } from "node:crypto";
import { ConditionFailedError } from "../error";
import type { Db } from "../dynamo/client";
import { putCedarPolicyItem, shippedPoliciesMarkerItem } from "../dynamo/catalog";
import type { Catalog } from "../group/catalog";
import { readPolicy } from "./cedar/read";
import { storedPolicy } from "./manage";
import type { StoredPolicy } from "./schema";
import { SHIPPED_EDITION, SHIPPED_POLICIES } from "./shipped";
import type { ShippedPolicy } from "./shipped";

const fingerprint = (text: string) => createHash("sha256").update(text).digest("base64url");

/** A shipped policy as an operator left it when its text is one toolgate shipped before: an edit is never overwritten. */
const unedited = (stored: StoredPolicy, replaces: ShippedPolicy["replaces"]) => stored.shipped === true && (replaces?.cedar ?? []).includes(fingerprint(stored.cedar));

const describedAsShipped = (stored: StoredPolicy, replaces: ShippedPolicy["replaces"]) =>
  stored.description === undefined || (replaces?.descriptions ?? []).includes(fingerprint(stored.description));

/**
 * Brings the table's shipped policies from the edition it holds to this one, in one transaction with the marker: a
 * table with none gets them all; one of an earlier edition gets the policies added since (a deleted one stays
 * deleted) and the new text of each it still holds unedited, keeping its mode and scope.
 */
export async function shipPolicies(db: Db, catalog: Catalog, now: string, edition = 0): Promise<number> {
  const read = await Promise.all(
    SHIPPED_POLICIES.map(async (shipped) => {
      const cedar = "cedar" in shipped.input ? shipped.input.cedar : "";
      const parsed = await readPolicy(cedar);
      if (!parsed.ok) throw new Error(`The shipped policy "${shipped.id}" does not parse: ${parsed.problems.map((problem) => problem.message).join("; ")}`);
      return { ...shipped, cedar, read: parsed.read };
    }),
  );
  return catalog
    .change((_manager, snapshot) => {
      const items = read.flatMap(({ id, input, cedar, read: parsed, since, replaces }) => {
        const stored = snapshot.policies.get(id);
        if (!stored && since > edition)
          return [putCedarPolicyItem(db, storedPolicy({ id, input, cedar, read: parsed, ifMatch: undefined, now, shipped: true, previous: undefined }))];
        if (stored && unedited(stored, replaces)) {
          const description = describedAsShipped(stored, replaces) ? input.description : stored.description;
          const kept = { ...input, mode: stored.mode, scope: stored.scope, ...(description === undefined ? {} : { description }) };
          return [putCedarPolicyItem(db, storedPolicy({ id, input: kept, cedar, read: parsed, ifMatch: undefined, now, shipped: true, previous: stored }), stored.version)];
        }
        return [];
      });
      return { items: [...items, shippedPoliciesMarkerItem(db, SHIPPED_EDITION, edition)], result: items.length };
    })
    .catch((error: unknown) => {
      if (error instanceof ConditionFailedError) return 0;
      throw error;
    });
}
