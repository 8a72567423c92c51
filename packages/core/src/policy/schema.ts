import * as z from "zod";
import { ToolPolicy } from "../tool/schema";

/** An admin's change to a tool's policy, kept in the catalog beside the tool's own definition. */
export const PolicyOverride = z.object({ policy: ToolPolicy.optional(), disabled: z.boolean().optional(), updatedAt: z.string() });
export type PolicyOverride = z.infer<typeof PolicyOverride>;

/** A PATCH of a policy: any of its fields, null removing one (JSON Merge Patch). */
export const PolicyPatch = z.partialRecord(ToolPolicy.keyof(), z.unknown());
export type PolicyPatch = z.infer<typeof PolicyPatch>;
