import * as z from "zod";

/** What a tool's `execute` is given besides its input: the call, who makes it, when toolgate stops waiting, and a logger. */
export type ToolContext = {
  callId: string;
  agent: { id: string; role: string; department?: string };
  /** Aborted at the call's timeout, when toolgate has stopped waiting for the answer. */
  signal: AbortSignal;
  log: Logger;
};

export type Logger = {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
};

/**
 * toolgate's policy of the tool (`x-toolgate`: confirmation, rate limits, categories, the arguments that are paths or
 * commands), as docs/api.md describes it; toolgate checks it when the module registers.
 */
export type ToolPolicy = Record<string, unknown>;

/** A text answer, or any other value answered as JSON. A thrown error is the call's error result, its message the text. */
export type ToolOutput = string | number | boolean | null | Record<string, unknown> | unknown[];

export type ToolSpec<Parameters extends z.ZodObject> = {
  name: string;
  description: string;
  parameters: Parameters;
  policy?: ToolPolicy;
  execute(input: z.infer<Parameters>, ctx: ToolContext): ToolOutput | Promise<ToolOutput>;
};

/** A tool as toolgate registers it: its definition in the OpenAI function format, and how it runs. */
export type ModuleTool = {
  name: string;
  definition: {
    type: "function";
    function: { name: string; description: string; parameters: Record<string, unknown> };
    "x-toolgate"?: ToolPolicy;
  };
  /** The input checked against the tool's own schema (toolgate checked it against the JSON Schema already). */
  parse(input: unknown): { ok: true; value: unknown } | { ok: false; problems: string };
  execute(input: unknown, ctx: ToolContext): Promise<ToolOutput>;
};

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Where the input's problems are, in a sentence. */
const problemsOf = (error: z.ZodError) => error.issues.map((issue) => `${issue.path.join(".") || "(input)"}: ${issue.message}`).join("; ");

/**
 * One tool: a zod object for its parameters (its JSON Schema made by zod's own converter, and what arrives checked
 * with the same schema), toolgate's policy, and what it does.
 */
export function defineTool<Parameters extends z.ZodObject>(spec: ToolSpec<Parameters>): ModuleTool {
  if (!TOOL_NAME.test(spec.name)) throw new Error(`A tool's name is 1-64 letters, digits, '_' or '-': "${spec.name}" is not.`);
  const { $schema: _dialect, ...parameters } = z.toJSONSchema(spec.parameters, { io: "input" }) as Record<string, unknown>;
  return {
    name: spec.name,
    definition: {
      type: "function",
      function: { name: spec.name, description: spec.description, parameters },
      ...(spec.policy ? { "x-toolgate": spec.policy } : {}),
    },
    parse(input) {
      const parsed = spec.parameters.safeParse(input);
      return parsed.success ? { ok: true, value: parsed.data } : { ok: false, problems: problemsOf(parsed.error) };
    },
    execute: async (input, ctx) => spec.execute(input as z.infer<Parameters>, ctx),
  };
}
