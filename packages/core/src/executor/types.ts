import type { Executor } from "./schema";

export type ExecutorType = Executor["type"];

/** What toolgate needs to know of one type of executor, besides how it runs a call (executor/index.ts `RUNNERS`). */
type ExecutorTypeFacts<E extends Executor> = {
  /** Who carries out an admitted call: toolgate, or the agent's runtime (which reports the result back). */
  runsIn: "toolgate" | "client";
  /** The executor's own timeout, when it names one (a tool's policy comes first, the guard's default last). */
  timeoutMs(executor: E): number | undefined;
  /** What an answer may show of it: its type and URL, never its headers or a program's environment (they may name secrets). */
  summary(executor: E): { type: ExecutorType; url?: string };
  /** Only toolgate's own groups may use it: nothing an admin or a module registers runs inside toolgate. */
  builtinOnly: boolean;
};

const withUrl = (executor: Extract<Executor, { url: string }>) => ({ type: executor.type, url: executor.url });
const typeOnly = (executor: Executor) => ({ type: executor.type });

/** Each type of executor, in the order the API documents them: adding one is one entry here, which the compiler asks for. */
const EXECUTOR_TYPE_FACTS: { [T in ExecutorType]: ExecutorTypeFacts<Extract<Executor, { type: T }>> } = {
  http: { runsIn: "toolgate", timeoutMs: (executor) => executor.timeoutMs, summary: withUrl, builtinOnly: false },
  mcp: { runsIn: "toolgate", timeoutMs: (executor) => executor.timeoutMs, summary: withUrl, builtinOnly: false },
  stdio: { runsIn: "toolgate", timeoutMs: (executor) => executor.timeoutMs, summary: typeOnly, builtinOnly: false },
  client: { runsIn: "client", timeoutMs: () => undefined, summary: typeOnly, builtinOnly: false },
  native: { runsIn: "toolgate", timeoutMs: () => undefined, summary: typeOnly, builtinOnly: true },
};

export const EXECUTOR_TYPES = Object.keys(EXECUTOR_TYPE_FACTS) as [ExecutorType, ...ExecutorType[]];

const factsOf = <E extends Executor>(executor: E) => EXECUTOR_TYPE_FACTS[executor.type] as unknown as ExecutorTypeFacts<E>;

export const runsIn = (executor: Executor) => factsOf(executor).runsIn;
export const executorTimeoutMs = (executor: Executor) => factsOf(executor).timeoutMs(executor);
export const executorSummary = (executor: Executor) => factsOf(executor).summary(executor);
export const isBuiltinOnly = (type: ExecutorType) => EXECUTOR_TYPE_FACTS[type].builtinOnly;
