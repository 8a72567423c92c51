import { setImmediate as turn } from "node:timers/promises";
import type { CallRecord } from "../call/schema";
import type { Db } from "./client";
import { keepPendingCall, putCall } from "./calls";
import { writeGuardState } from "./guard";
import type { GuardOutcome, GuardWrite } from "./guard";
import { getRoleAndCatalogVersions } from "./roles";

/** What an admission writes and reads before the call's start is known. */
export type AdmissionFirst = {
  /** The agent's next guard state, written only if the state and the agent's token are still as the plan saw them. */
  guard: GuardWrite;
  /** A plan made on a cached role and catalog is proven current by reading their versions in the same round trip. */
  checkRole?: string;
};

/** The call's start as recorded, when its record expires, and (for a call that waits) its real arguments, sealed. */
export type AdmissionStart = { start: CallRecord; expiresAt: number; sealedArguments?: string };

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

/** An admission under way: its first requests are out, the call's start is still to be written (or the call given up). */
export type PendingAdmission = {
  /** Resolves once the first requests have left the process: work done after it overlaps their round trip. */
  sent(): Promise<void>;
  /** Writes the call's start beside the first requests and answers for all of them. */
  complete(start: AdmissionStart): Promise<AdmissionOutcome>;
  /** The call is not admitted after all: the guard state's write as it ended, if it did (to put back what it counted). */
  abandon(): Promise<GuardOutcome | undefined>;
};

/**
 * A call's admission in one round trip, its requests made together: the conditional write of the agent's guard
 * state and the versions that prove a cached plan current go first, so that what decides the call's start (the
 * policies' answer) can be worked out while they travel; the call's start and the kept arguments of a waiting call follow.
 */
export function beginAdmission(db: Db, first: AdmissionFirst): PendingAdmission {
  const guard = writeGuardState(db, first.guard);
  const check = first.checkRole === undefined ? undefined : getRoleAndCatalogVersions(db, first.checkRole);
  // Rejections are answered by complete() or abandon(); until then they must not count as unhandled.
  guard.catch(() => {});
  check?.catch(() => {});
  return {
    sent: () => turn(),
    async complete({ start, expiresAt, sealedArguments }) {
      const [guarded, started, checked, kept] = await Promise.allSettled([
        guard,
        putCall(db, start, expiresAt),
        check,
        sealedArguments === undefined ? undefined : keepPendingCall(db, start.callId, start.agentId, sealedArguments, expiresAt),
      ]);
      if (guarded.status === "rejected" || started.status === "rejected" || checked.status === "rejected" || kept.status === "rejected") {
        const failure = [guarded, started, checked, kept].find((part) => part.status === "rejected") as PromiseRejectedResult;
        throw new AdmissionWriteError(started.status === "fulfilled", { cause: failure.reason });
      }
      return { guard: guarded.value, ...(checked.value ? { check: checked.value } : {}) };
    },
    async abandon() {
      const [guarded] = await Promise.allSettled([guard, check]);
      return guarded.status === "fulfilled" ? guarded.value : undefined;
    },
  };
}
