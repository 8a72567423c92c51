import type { CallRecord } from "../call/schema";
import type { Db } from "./client";
import { keepPendingCall, putCall } from "./calls";
import { writeGuardState } from "./guard";
import type { GuardOutcome, GuardWrite } from "./guard";
import { getRoleAndCatalogVersions } from "./roles";

export type AdmissionWrite = {
  /** The agent's next guard state, written only if the state and the agent's token are still as the plan saw them. */
  guard: GuardWrite;
  /** The call's start as recorded, and when its record expires. */
  start: CallRecord;
  expiresAt: number;
  /** A plan made on a cached role and catalog is proven current by reading their versions in the same round trip. */
  checkRole?: string;
  /** A call that waits keeps its real arguments, sealed, beside its record. */
  sealedArguments?: string;
};

export type AdmissionOutcome = { guard: GuardOutcome; check?: { roleVersion?: number; catalogVersion: number } };

/** A part of an admission failed in the store; whether the call's start was recorded says what is left to correct. */
export class AdmissionWriteError extends Error {
  constructor(
    readonly startWritten: boolean,
    options: { cause: unknown },
  ) {
    super("An admission's write failed.", options);
    this.name = "AdmissionWriteError";
  }
}

/**
 * A call's admission in one round trip, its requests made together: the conditional write of the agent's guard
 * state, the call's start, the versions that prove a cached plan current and the kept arguments of a waiting call.
 */
export async function admitCall(db: Db, write: AdmissionWrite): Promise<AdmissionOutcome> {
  const [guard, start, check, kept] = await Promise.allSettled([
    writeGuardState(db, write.guard),
    putCall(db, write.start, write.expiresAt),
    write.checkRole === undefined ? undefined : getRoleAndCatalogVersions(db, write.checkRole),
    write.sealedArguments === undefined ? undefined : keepPendingCall(db, write.start.callId, write.start.agentId, write.sealedArguments, write.expiresAt),
  ]);
  if (guard.status === "rejected" || start.status === "rejected" || check.status === "rejected" || kept.status === "rejected") {
    const failure = [guard, start, check, kept].find((part) => part.status === "rejected") as PromiseRejectedResult;
    throw new AdmissionWriteError(start.status === "fulfilled", { cause: failure.reason });
  }
  return { guard: guard.value, ...(check.value ? { check: check.value } : {}) };
}
