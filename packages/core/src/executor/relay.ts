import type { CallTokens } from "./call-token";
import type { InputRequests, ToolResult } from "./schema";

/**
 * What a running call may carry back to the agent's MCP client while it runs, for an executor that speaks MCP: its
 * progress, its log messages, and the requests its server puts to the client (a question for the user, a sampling
 * request). A call with no client to carry them to (REST, or a client that cannot take them) has no relay.
 */
export interface CallRelay {
  /** Whether the agent's request asked for progress (it carried a progressToken). */
  readonly wantsProgress: boolean;
  /**
   * The least severe log level to ask an upstream for (a 2026-07-28 server sends none unless a request names one), or
   * undefined for none. `log` still drops what the client's own level leaves out.
   */
  readonly logLevel: string | undefined;
  progress(params: { progress: number; total?: number; message?: string }): Promise<void>;
  log(params: { level: string; logger?: string; data?: unknown }): Promise<void>;
  /** Puts the request to the agent's client and resolves with its answer; refuses (a RelayRefusal) what the client cannot take. */
  request(method: RelayedRequest, params: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>>;
  /**
   * Whether the agent's client answers these input requests itself, through its own input round trip (a 2026-07-28
   * client that declares each kind): then the call pauses for them rather than being asked mid-call.
   */
  takesInput(requests: InputRequests): boolean;
  /**
   * What a 2026-07-28 client declared on this request that toolgate carries (elicitation in its modes, sampling,
   * roots), as MCP client capabilities: what toolgate declares in turn to a 2026-07-28 server for this call, so the
   * server asks only what this client can answer. Undefined for any other client.
   */
  readonly declares?: ClientCapabilities | undefined;
}

/** The client capabilities toolgate declares for a call: those of what it carries. */
export type ClientCapabilities = { elicitation?: { form?: Record<string, never>; url?: Record<string, never> }; sampling?: Record<string, never>; roots?: Record<string, never> };

export type { InputRequests } from "./schema";

/**
 * The answers to a server's input requests and its request state, sent with the call when it goes on; `held`: the call
 * this process holds open while its 2025-era server waits for the answer (executor/held.ts), never sent again.
 */
export type InputAnswers = { inputResponses: Record<string, unknown>; requestState?: string; held?: string };

/** A call held open while its 2025-era server waits for the agent's client's answer: its id, and how it ended if it ended while held. */
export type HeldOpen = { id: string; endedWhileHeld: Promise<ToolResult> };

/**
 * A call paused for its agent's own client: the server's input requests (scrubbed of the executor's secrets) and its
 * request state. Not a failure: the call stays running until the client sends it again with the answers.
 */
export class InputRequired extends Error {
  constructor(
    readonly inputRequests: InputRequests,
    readonly requestState: string | undefined,
    /** The paused call, which of its pauses this is (from 0), and how long its tool has run so far, once the guard knows them. */
    readonly paused?: { callId: string; round: number; ranMs: number },
    readonly held?: HeldOpen,
  ) {
    super("The tool's MCP server asks the agent's client for input.");
  }

  of(callId: string, round: number, ranMs: number) {
    return new InputRequired(this.inputRequests, this.requestState, { callId, round, ranMs }, this.held);
  }
}

export type RelayedRequest = "elicitation/create" | "sampling/createMessage" | "roots/list";

/** Whether a server's request is one toolgate carries to people: a question, a sampling request or a request for the client's roots. */
export const isRelayed = (method: string): method is RelayedRequest => method === "elicitation/create" || method === "sampling/createMessage" || method === "roots/list";

/**
 * Where a module's question (a form, never a URL) goes when the agent's client cannot take it, or its role sends every
 * question to the operators: the questions queue. Resolves with the answer (MCP elicitation's result), or undefined
 * when the form is not one an operator can be asked.
 */
export type OperatorQuestions = (params: Record<string, unknown>, signal: AbortSignal) => Promise<Record<string, unknown> | undefined>;

/** What a call carries to people: the agent's client, and the operators, asked first when `operatorsFirst`. */
export type CallPeople = { relay?: CallRelay; operators?: OperatorQuestions; operatorsFirst?: boolean };

/** A request toolgate cannot carry to the agent's client; the server that sent it gets this as its JSON-RPC error. */
export class RelayRefusal extends Error {
  readonly code = -32600;
}

const REFUSALS: Record<RelayedRequest, string> = {
  "elicitation/create":
    "toolgate cannot put this question to anyone: the agent's client cannot be asked during this call (it came over REST, or from an MCP client that does not declare elicitation, or whose responses do not stream).",
  "sampling/createMessage":
    "toolgate cannot relay this sampling request: only an MCP client that declares sampling takes one (a 2025-era client on a streaming response, a 2026-07-28 client through its input round trip).",
  "roots/list":
    "toolgate cannot relay this request for roots, and never makes roots up: only an MCP client that declares roots answers one (a 2025-era client on a streaming response, a 2026-07-28 client through its input round trip).",
};

export const cannotRelay = (method: RelayedRequest, detail?: string) => new RelayRefusal(detail ? `${REFUSALS[method]} ${detail}` : REFUSALS[method]);

/**
 * A call as its connection serves it: where what the server sends goes, the secrets to cut from it, the call token,
 * and its admission, which every request waits for (see RunOptions). `hold`: takes a request the agent's 2026-07-28
 * client answers through its own input round trip, the call held open meanwhile (executor/held.ts).
 */
export type ServedCall = CallPeople & {
  secrets: string[];
  callToken?: CallTokens;
  admitted?: Promise<void>;
  hold?: (method: RelayedRequest, params: Record<string, unknown>, signal: AbortSignal) => Promise<Record<string, unknown>>;
};
