import { isDeepStrictEqual } from "node:util";
import { commonError } from "../error";
import { policyError } from "./errors";
import type { Db } from "../dynamo/client";
import { deleteCedarPolicyItem, putCedarPolicyItem } from "../dynamo/catalog";
import { policyChanged } from "../events/index";
import type { EventPublisher } from "../events/publisher";
import type { Catalog, CatalogSnapshot } from "../group/catalog";
import type { ToolGroupManager } from "../group/manager";
import { readPolicy } from "./cedar/read";
import type { PolicyProblem, ReadPolicy } from "./cedar/read";
import { CedarFault } from "./cedar/wasm";
import { definitionsMet } from "./cedar/layers";
import { validateAgainstCatalog } from "./cedar/validate";
import { compileRule } from "./short-rule";
import { missingInScope } from "../scope/exists";
import { MAX_POLICIES, MAX_POLICY_BYTES } from "./schema";
import type { PolicyInput, StoredPolicy } from "./schema";

/** A policy as the API shows it: as stored, with its problems against the catalog as it is now (none when valid). */
export type PolicyView = Omit<StoredPolicy, "targets" | "reads"> & { problems: PolicyProblem[] };

const viewOf = (policy: StoredPolicy, problems: PolicyProblem[]): PolicyView => {
  const { targets: _targets, reads: _reads, ...shown } = policy;
  return { ...shown, problems };
};

const invalid = (problems: PolicyProblem[], cedar?: string) =>
  policyError("invalid_policy", `The policy is not valid: ${problems.map((problem) => problem.message).join("; ")}`, {
    problems,
    ...(cedar !== undefined ? { cedar } : {}),
  });

const policyNotFound = (id: string) => policyError("policy_not_found", `There is no policy "${id}".`, { policyId: id });

const versionConflict = (id: string, expected: number, current: number | undefined) =>
  commonError(
    "version_conflict",
    current === undefined
      ? `There is no policy "${id}" at version ${expected} (If-Match): it does not exist.`
      : `The policy "${id}" was changed by someone else (you had version ${expected}, it is now at version ${current}). Reload it and apply your change again.`,
    { ...(current !== undefined ? { currentVersion: current } : {}) },
  );

/** What a draft policy would be: its Cedar text (compiled from a short rule), what Cedar reads in it, and its problems against the catalog. */
export type Checked = { cedar: string; read?: ReadPolicy; problems: PolicyProblem[] };

/** What a policy is checked against: the catalog, and the store for the role or agent its scope names. */
export type CheckGround = { db: Db; manager: ToolGroupManager };

export async function checkPolicy({ db, manager }: CheckGround, id: string, input: PolicyInput): Promise<Checked> {
  const missing = await missingInScope(db, input.scope);
  if (missing) return { cedar: "", problems: [{ message: missing }] };
  let cedar: string;
  if ("rule" in input) {
    const [meant, ...alsoMet] = definitionsMet(manager, input.scope, input.rule.tool).map((found) => found.definition);
    const compiled = compileRule(input.rule, meant, alsoMet);
    if ("problem" in compiled) return { cedar: "", problems: [{ message: compiled.problem }] };
    cedar = compiled.cedar;
  } else cedar = input.cedar;
  const bytes = Buffer.byteLength(cedar, "utf8");
  if (bytes > MAX_POLICY_BYTES) return { cedar: "", problems: [{ message: `A policy may hold at most 64 KiB of Cedar text; this one holds ${bytes} bytes.` }] };
  try {
    const read = await readPolicy(cedar);
    if (!read.ok) return { cedar, problems: read.problems };
    const problems = (await validateAgainstCatalog(manager, [{ id, cedar, targets: read.read.targets, scope: input.scope }])).get(id) ?? [];
    return { cedar, read: read.read, problems };
  } catch (error) {
    if (error instanceof CedarFault) return { cedar, problems: [{ message: `${error.message} This text was not saved: simplify it (fewer nested brackets or operators).` }] };
    throw error;
  }
}

/** Every policy, each with its problems against the catalog now, and the policy set's revision. */
export async function listPolicies(catalog: Catalog): Promise<{ policies: PolicyView[]; revision: number }> {
  const snapshot = await catalog.snapshot();
  return { policies: await viewsOf(snapshot, [...snapshot.policies.values()]), revision: snapshot.version };
}

async function viewsOf(snapshot: CatalogSnapshot, policies: StoredPolicy[]) {
  const problems = await validateAgainstCatalog(snapshot.manager, policies).catch((error: unknown) => {
    if (!(error instanceof CedarFault)) throw error;
    return new Map(policies.map((policy) => [policy.id, [{ message: `${error.message} These policies could not be checked against the catalog this time.` }]]));
  });
  return policies.sort((a, b) => a.id.localeCompare(b.id)).map((policy) => viewOf(policy, problems.get(policy.id) ?? []));
}

export async function getPolicy(catalog: Catalog, id: string): Promise<PolicyView> {
  const snapshot = await catalog.snapshot();
  const policy = snapshot.policies.get(id);
  if (!policy) throw policyNotFound(id);
  return (await viewsOf(snapshot, [policy]))[0]!;
}

/** The policy to store: what was asked, what Cedar read in it, and what stays of the one it replaces. */
export function storedPolicy({ id, input, cedar, read, previous, now, shipped }: PutPolicy & { cedar: string; read: ReadPolicy; previous: StoredPolicy | undefined }): StoredPolicy {
  return {
    id,
    version: (previous?.version ?? 0) + 1,
    scope: input.scope,
    mode: input.mode,
    ...(input.description !== undefined ? { description: input.description } : {}),
    effect: read.effect,
    cedar,
    ...("rule" in input ? { rule: input.rule } : {}),
    ...(read.reason !== undefined ? { reason: read.reason } : {}),
    recoverable: read.recoverable,
    ...(read.unlessAllowed ? { unlessAllowed: true as const } : {}),
    targets: read.targets,
    reads: read.reads,
    ...((shipped ?? previous?.shipped) ? { shipped: true as const } : {}),
    createdAt: previous?.createdAt ?? now,
    updatedAt: now,
  };
}

/** The same Cedar text, or the same one-line rule, as the policy stored. */
const sameText = (stored: StoredPolicy, input: PolicyInput) => ("rule" in input ? isDeepStrictEqual(stored.rule, input.rule) : !stored.rule && stored.cedar === input.cedar);

/**
 * A policy saved again with its text unchanged (to switch its mode, or change its description) is not checked against
 * the catalog again: one a catalog change made invalid keeps failing closed, and can still be made log-only.
 */
async function unchanged(db: Db, stored: StoredPolicy, input: PolicyInput): Promise<Checked> {
  const missing = input.scope === stored.scope ? undefined : await missingInScope(db, input.scope);
  if (missing) return { cedar: stored.cedar, problems: [{ message: missing }] };
  const read = await readPolicy(stored.cedar);
  return read.ok ? { cedar: stored.cedar, read: read.read, problems: [] } : { cedar: stored.cedar, problems: read.problems };
}

const alreadyExists = (id: string, version: number) =>
  commonError("version_conflict", `A policy "${id}" already exists (version ${version}); If-None-Match: * creates only a new one.`, { currentVersion: version });

export type PutPolicy = { id: string; input: PolicyInput; ifMatch: number | undefined; createOnly?: boolean; now: string; shipped?: true };

/** Creates or replaces a policy once it parses and validates against the catalog; If-Match (a version) refuses a stale change. */
export async function putPolicy(db: Db, catalog: Catalog, events: EventPublisher, put: PutPolicy): Promise<{ created: boolean; policy: PolicyView }> {
  const snapshot = await catalog.snapshot();
  const existing = snapshot.policies.get(put.id);
  const checked =
    existing && sameText(existing, put.input) ? await unchanged(db, existing, put.input) : await checkPolicy({ db, manager: snapshot.manager }, put.id, put.input);
  if (!checked.read || checked.problems.length) throw invalid(checked.problems, checked.cedar || undefined);
  const { read, cedar } = checked;
  const stored = await catalog.change((_manager, current) => {
    const previous = current.policies.get(put.id);
    if (put.createOnly && previous) throw alreadyExists(put.id, previous.version);
    if (put.ifMatch !== undefined && previous?.version !== put.ifMatch) throw versionConflict(put.id, put.ifMatch, previous?.version);
    if (!previous && current.policies.size >= MAX_POLICIES)
      throw policyError("too_many_policies", `toolgate holds at most ${MAX_POLICIES} policies; delete one before adding another.`, { limit: MAX_POLICIES });
    const policy = storedPolicy({ ...put, cedar, read, previous });
    return { items: [putCedarPolicyItem(db, policy)], result: { policy, created: !previous } };
  });
  const revision = (catalog.peek()?.version ?? 0);
  await events.publish(policyChanged({ ...changeOf(stored.policy), change: stored.created ? "created" : "updated", revision, at: put.now }));
  return { created: stored.created, policy: viewOf(stored.policy, []) };
}

const changeOf = ({ id, version, scope, mode, effect }: StoredPolicy) => ({ policyId: id, version, scope, mode, effect });

export async function deletePolicy(db: Db, catalog: Catalog, events: EventPublisher, id: string, ifMatch: number | undefined, now: string): Promise<void> {
  const removed = await catalog.change((_manager, current) => {
    const previous = current.policies.get(id);
    if (!previous) throw policyNotFound(id);
    if (ifMatch !== undefined && previous.version !== ifMatch) throw versionConflict(id, ifMatch, previous.version);
    return { items: [deleteCedarPolicyItem(db, id)], result: previous };
  });
  const revision = catalog.peek()?.version ?? 0;
  await events.publish(policyChanged({ ...changeOf(removed), change: "deleted", revision, at: now }));
}
