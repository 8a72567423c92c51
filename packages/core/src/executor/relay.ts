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
}

/** What an MCP server asks for during a call on 2026-07-28 (its input_required answer's requests), by key. */
export type InputRequests = Record<string, { method: string; params?: Record<string, unknown> }>;

/** The answers to a server's input requests and its request state, sent with the call when it goes on. */
export type InputAnswers = { inputResponses: Record<string, unknown>; requestState?: string };

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
  ) {
    super("The tool's MCP server asks the agent's client for input.");
  }

  of(callId: string, round: number, ranMs: number) {
    return new InputRequired(this.inputRequests, this.requestState, { callId, round, ranMs });
  }
}

export type RelayedRequest = "elicitation/create" | "sampling/createMessage";

/** Whether a server's request is one toolgate carries to people: a question or a sampling request. */
export const isRelayed = (method: string): method is RelayedRequest => method === "elicitation/create" || method === "sampling/createMessage";

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
    "toolgate cannot relay this sampling request: only a 2025-era MCP client that declares sampling, on a streaming response, takes one (sampling is deprecated in MCP 2026-07-28).",
};

export const cannotRelay = (method: RelayedRequest, detail?: string) => new RelayRefusal(detail ? `${REFUSALS[method]} ${detail}` : REFUSALS[method]);
