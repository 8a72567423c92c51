// Calls whose 2025-era MCP server waits on a request (a question, a sampling request) that the agent's 2026-07-28 client
// answers through its own input round trip: held open in this process, their connection busy and their deadline running.
import { randomUUID } from "node:crypto";
import { executorError } from "./errors";
import { RelayRefusal } from "./relay";
import type { CallPeople, InputRequests, RelayedRequest, ServedCall } from "./relay";
import type { ToolResult } from "./schema";

/** Calls held at once in one process: past it the oldest is released. */
export const MAX_HELD_CALLS = 64;
/** The key of the one input request a held call's pause asks its client. */
export const HELD_REQUEST_KEY = "upstream";

type Waiting = { method: RelayedRequest; params: Record<string, unknown>; answer(response: Record<string, unknown>): void; refuse(error: Error): void };

/** What a held call's server asks next, to the agent's client, as the one input request of the pause. */
export type HeldPause = { id: string; inputRequests: InputRequests; endedWhileHeld: Promise<ToolResult> };

const held = new Map<string, HeldCall>();

export const heldElsewhere = (tool: string) =>
  executorError(
    "executor_failed",
    `The MCP server of "${tool}" asked for the agent's client's input during this call, which toolgate held open on the instance that paused it; that instance no longer holds it (another toolgate instance took this request, toolgate restarted, or the call expired), so the answer cannot reach the server. Make the call again.`,
    { recoverable: true },
  );

/**
 * One call to a 2025-era server, which may ask while it runs: `ask` takes its server's requests, `until` runs the call
 * until it ends or its server asks (the call then held, its pause returned), and goes on from where it stopped.
 * `signal` aborts the call's tools/call when the call is released. `served`: the call as its connection serves it.
 */
export class HeldCall {
  served: ServedCall | undefined;
  #id: string | undefined;
  readonly #waiting: Waiting[] = [];
  #asked: Waiting | undefined;
  #wake = () => {};
  #state: "running" | "held" | "released" = "running";
  #running: Promise<ToolResult> | undefined;
  readonly #release = new AbortController();
  readonly signal = this.#release.signal;
  #endWhileHeld!: { resolve(result: ToolResult): void; reject(error: unknown): void };
  /** How the call ended while held (its deadline passed, its server answered or failed): settles only then. */
  readonly endedWhileHeld = new Promise<ToolResult>((resolve, reject) => (this.#endWhileHeld = { resolve, reject }));

  constructor() {
    this.endedWhileHeld.catch(() => {});
  }

  readonly ask = (method: RelayedRequest, params: Record<string, unknown>, signal: AbortSignal) =>
    new Promise<Record<string, unknown>>((answer, refuse) => {
      if (this.#state === "released") return refuse(new RelayRefusal("toolgate let go of this call."));
      const waiting: Waiting = { method, params, answer, refuse };
      this.#waiting.push(waiting);
      signal.addEventListener("abort", () => this.#withdraw(waiting, signal.reason), { once: true });
      this.#wake();
    });

  /** The call's result, or its pause (thrown by the caller as InputRequired) when its server asks first. */
  async until(running?: Promise<ToolResult>): Promise<ToolResult | HeldPause> {
    if (running) this.#follow(running);
    const asked = new Promise<"asked">((wake) => {
      this.#wake = () => wake("asked");
      if (this.#waiting.length) wake("asked");
    });
    if ((await Promise.race([this.#running!, asked])) !== "asked") return this.#running!;
    this.#asked = this.#waiting.shift()!;
    return this.#hold();
  }

  /** The agent's client's answer to what its server asked (declined and cancelled ones too), given to the server. */
  answer(inputResponses: Record<string, unknown>) {
    const asked = this.#asked;
    this.#asked = undefined;
    const response = inputResponses[HELD_REQUEST_KEY];
    if (typeof response === "object" && response !== null && !Array.isArray(response)) asked?.answer(response as Record<string, unknown>);
    else asked?.refuse(new RelayRefusal("The agent's client sent no answer to this request."));
  }

  /** Lets go of the call: its server's requests are refused and its tools/call is cancelled; nothing is recorded here. */
  release(why: string) {
    if (this.#state === "held") held.delete(this.#id!);
    this.#state = "released";
    this.#refuseAll(new RelayRefusal(`toolgate let go of this call: ${why}`));
    this.#release.abort(new Error(why));
  }

  /** What the server sends from now on reaches the people of the request that took the call on. */
  servedBy({ relay, operators, operatorsFirst }: CallPeople) {
    if (this.served) Object.assign(this.served, { relay, operators, operatorsFirst });
  }

  #hold(): HeldPause {
    if (held.size >= MAX_HELD_CALLS) held.values().next().value!.release(`it held more than ${MAX_HELD_CALLS} calls.`);
    this.#id = randomUUID();
    this.#state = "held";
    held.set(this.#id, this);
    const { method, params } = this.#asked!;
    return { id: this.#id, inputRequests: { [HELD_REQUEST_KEY]: { method, params } }, endedWhileHeld: this.endedWhileHeld };
  }

  /** Taken on by the agent's client's next request: no longer held. */
  taken() {
    held.delete(this.#id!);
    this.#state = "running";
    return this;
  }

  #follow(running: Promise<ToolResult>) {
    this.#running = running;
    const ended = (settle: () => void) => {
      this.#refuseAll(new RelayRefusal("The call that asked this has ended."));
      if (this.#state !== "held") return;
      held.delete(this.#id!);
      this.#state = "released";
      settle();
    };
    running.then(
      (result) => ended(() => this.#endWhileHeld.resolve(result)),
      (error: unknown) => ended(() => this.#endWhileHeld.reject(error)),
    );
  }

  #withdraw(waiting: Waiting, reason: unknown) {
    if (this.#asked === waiting) this.#asked = undefined;
    const at = this.#waiting.indexOf(waiting);
    if (at >= 0) this.#waiting.splice(at, 1);
    waiting.refuse(reason instanceof Error ? reason : new Error("The request was cancelled."));
  }

  #refuseAll(error: Error) {
    for (const waiting of [...this.#waiting.splice(0), ...(this.#asked ? [this.#asked] : [])]) waiting.refuse(error);
    this.#asked = undefined;
  }
}

/** The held call a paused call's request state names, taken on; undefined when this process does not hold it. */
export function takeHeld(id: string): HeldCall | undefined {
  return held.get(id)?.taken();
}

/** Lets go of every held call (shutdown). */
export function releaseHeldCalls() {
  for (const call of [...held.values()]) call.release("toolgate is shutting down.");
}
