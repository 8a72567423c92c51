import * as z from "zod";
import { StoreUnavailableError, ToolgateError } from "../error";
import type { ToolResult } from "../executor/schema";
import { safeParseHuman } from "../validation";
import { NAME_PATTERN } from "./schema";

export type { ToolResult };

export type ToolContext<Input = Record<string, unknown>> = {
  callId: string;
  input: Input;
  /** The calling agent. */
  sessionID: string;
  /** Aborted when the call's timeout passes: a tool stops its work when it fires. */
  signal: AbortSignal;
};

export type ToolInfo<Schema extends z.ZodType = z.ZodType> = {
  name: string;
  description: string;
  parameters: Schema;
  /** Validates the input with the zod schema and runs; a failure becomes an error result, a refusal (403) is thrown. */
  execute(context: ToolContext<unknown>): Promise<ToolResult>;
};

export type ToolConfig<Schema extends z.ZodType> = {
  name: string;
  description: string;
  parameters: Schema;
  execute: (context: ToolContext<z.output<Schema>>) => Promise<ToolResult>;
};

export class ToolConfigError extends Error {
  override name = "ToolConfigError";
}

const AsyncFunction = (async () => {}).constructor;

export const errorResult = (message: string, metadata?: Record<string, unknown>): ToolResult => ({
  content: message,
  type: "error",
  ...(metadata ? { metadata } : {}),
});

export const jsonResult = (value: unknown): ToolResult => ({ content: JSON.stringify(value), type: "json" });

function invalidInput(name: string, error: z.ZodError): ToolResult {
  const problems = error.issues.map((issue) => `${issue.path.join(".") || "(input)"}: ${issue.message}`).join("; ");
  return errorResult(`The arguments for ${name} are not valid (${problems}). Rewrite the input so it satisfies the tool's schema.`, {
    code: "invalid_arguments",
  });
}

/** A native tool: a name, a description, zod parameters and an async execute. Timeouts belong to the executor that runs it. */
export namespace Tool {
  export type Info = ToolInfo;
  export type Context<Input = Record<string, unknown>> = ToolContext<Input>;
  export type Result = ToolResult;

  export function define<Schema extends z.ZodType>(config: ToolConfig<Schema>): ToolInfo<Schema> {
    if (typeof config.name !== "string" || !NAME_PATTERN.test(config.name))
      throw new ToolConfigError(`A tool needs a name of 1-64 letters, digits, '_' or '-'; got ${JSON.stringify(config.name)}.`);
    if (!(config.parameters instanceof z.ZodType))
      throw new ToolConfigError(`The tool ${config.name} needs a zod schema as its parameters.`);
    if (!(config.execute instanceof AsyncFunction))
      throw new ToolConfigError(`The tool ${config.name} needs an async execute function.`);
    return {
      name: config.name,
      description: config.description,
      parameters: config.parameters,
      async execute(context) {
        const parsed = safeParseHuman(config.parameters, context.input);
        if (!parsed.success) return invalidInput(config.name, parsed.error);
        try {
          return await config.execute({ ...context, input: parsed.data });
        } catch (error) {
          if ((error instanceof ToolgateError && error.status === 403) || error instanceof StoreUnavailableError) throw error;
          const code = (error as { code?: unknown })?.code;
          return errorResult(error instanceof Error ? error.message : String(error), typeof code === "string" ? { code } : undefined);
        }
      },
    };
  }
}
