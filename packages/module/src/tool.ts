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

/** A tool without what runs it: its name, what it does, its zod parameters and toolgate's policy. `defineTool` adds `execute`. */
export type ToolDescription<Parameters extends z.ZodObject = z.ZodObject> = {
  name: string;
  description: string;
  parameters: Parameters;
  policy?: ToolPolicy;
};

/** A tool and what it does; `Context` is what `execute` is given besides its input (a module's tools get `ToolContext`). */
export type ToolSpec<Parameters extends z.ZodObject, Context = ToolContext> = ToolDescription<Parameters> & {
  execute(input: z.infer<Parameters>, ctx: Context): ToolOutput | Promise<ToolOutput>;
};

/** A tool's definition as toolgate registers it: the OpenAI function format, its policy beside it. */
export type ToolDefinition = {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
  "x-toolgate"?: ToolPolicy;
};

/** A described tool: its definition, and its input checked against its own schema, whoever runs it. */
export type DescribedTool = {
  name: string;
  definition: ToolDefinition;
  /** The input checked against the tool's own schema (toolgate checked it against the JSON Schema already). */
  parse(input: unknown): { ok: true; value: unknown } | { ok: false; problems: string };
};

/** A tool as toolgate registers it, and how it runs. */
export type ModuleTool<Context = ToolContext> = DescribedTool & {
  execute(input: unknown, ctx: Context): Promise<ToolOutput>;
};

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Where the input's problems are, in a sentence. */
const problemsOf = (error: z.ZodError) => error.issues.map((issue) => `${issue.path.join(".") || "(input)"}: ${issue.message}`).join("; ");

const definitionOf = (description: ToolDescription): ToolDefinition => {
  const { $schema: _dialect, ...parameters } = z.toJSONSchema(description.parameters, { io: "input" }) as Record<string, unknown>;
  return {
    type: "function",
    function: { name: description.name, description: description.description, parameters },
    ...(description.policy ? { "x-toolgate": description.policy } : {}),
  };
};

/**
 * A tool that runs elsewhere (in an agent's runtime, or a module that adds `execute` to the same description later):
 * its definition (the JSON Schema made by zod's own converter when it is first read) and its input check.
 */
export function describeTool(description: ToolDescription): DescribedTool {
  if (!TOOL_NAME.test(description.name)) throw new Error(`A tool's name is 1-64 letters, digits, '_' or '-': "${description.name}" is not.`);
  let definition: ToolDefinition | undefined;
  return {
    name: description.name,
    get definition() {
      return (definition ??= definitionOf(description));
    },
    parse(input) {
      const parsed = description.parameters.safeParse(input);
      return parsed.success ? { ok: true, value: parsed.data } : { ok: false, problems: problemsOf(parsed.error) };
    },
  };
}

/**
 * One tool: a zod object for its parameters (its JSON Schema made by zod's own converter, and what arrives checked
 * with the same schema), toolgate's policy, and what it does.
 */
export function defineTool<Parameters extends z.ZodObject, Context = ToolContext>(spec: ToolSpec<Parameters, Context>): ModuleTool<Context> {
  return Object.assign(describeTool(spec), {
    execute: async (input: unknown, ctx: Context) => spec.execute(input as z.infer<Parameters>, ctx),
  });
}
