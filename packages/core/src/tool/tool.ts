import { z } from "zod";
import { ToolgateError } from "../error";
import { safeParseHuman } from "../validation";
import { NAME_PATTERN } from "./definition";
import type { ToolDefinition, ToolPolicy } from "./definition";
import type { ToolRegistry } from "./registry";

export type ToolResult = {
  content: string;
  type: "text" | "json" | "error";
  attachments?: Array<{ name: string; mimeType: string; content: string }>;
  metadata?: Record<string, unknown>;
};

export type ToolMetadata = {
  category?: string;
  tags?: string[];
  timeoutMs?: number;
  dangerous?: boolean;
};

export type ToolContext<Input = Record<string, unknown>> = {
  callId: string;
  input: Input;
  /** The calling agent. */
  sessionID: string;
  messageID?: string;
  /** Progress and state updates while the tool runs. */
  metadata(update: Record<string, unknown>): void;
  signal: AbortSignal;
  tool: ToolInfo;
  registry: ToolRegistry;
};

export type ToolInfo<Schema extends z.ZodType = z.ZodType> = {
  name: string;
  description: string;
  parameters: Schema;
  metadata: ToolMetadata;
  createdAt: number;
  disabled: boolean;
  /** Validates the input, runs within the timeout and turns any failure into an error result. */
  execute(context: ToolContext<unknown>): Promise<ToolResult>;
  definition(): ToolDefinition;
};

export type ToolConfig<Schema extends z.ZodType> = {
  name: string;
  description: string;
  parameters: Schema;
  execute: (context: ToolContext<z.output<Schema>>) => Promise<ToolResult>;
  metadata?: ToolMetadata;
};

export class ToolConfigError extends Error {
  override name = "ToolConfigError";
}

export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;

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

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...jsonSchema } = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  return jsonSchema;
}

function policyOf(metadata: ToolMetadata): { "x-toolgate"?: ToolPolicy } {
  const policy: ToolPolicy = {
    ...(metadata.timeoutMs !== undefined ? { timeoutMs: metadata.timeoutMs } : {}),
    ...(metadata.dangerous !== undefined ? { dangerous: metadata.dangerous } : {}),
    ...(metadata.category !== undefined ? { category: metadata.category } : {}),
    ...(metadata.tags !== undefined ? { tags: metadata.tags } : {}),
  };
  return Object.keys(policy).length ? { "x-toolgate": policy } : {};
}

function withTimeout(signal: AbortSignal | undefined, timeoutMs: number) {
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}

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
    const info: ToolInfo<Schema> = {
      name: config.name,
      description: config.description,
      parameters: config.parameters,
      metadata: { ...(config.metadata ?? {}) },
      createdAt: Date.now(),
      disabled: false,
      definition: () => ({
        type: "function",
        function: { name: info.name, description: info.description, parameters: jsonSchemaOf(info.parameters) },
        ...policyOf(info.metadata),
      }),
      async execute(context) {
        const parsed = safeParseHuman(config.parameters, context.input);
        if (!parsed.success) return invalidInput(config.name, parsed.error);
        const timeoutMs = info.metadata.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
        const signal = withTimeout(context.signal, timeoutMs);
        const aborted = new Promise<ToolResult>((resolve) => {
          const onAbort = () =>
            resolve(
              signal.reason instanceof DOMException && signal.reason.name === "TimeoutError"
                ? errorResult(`The tool ${config.name} did not finish within ${timeoutMs} ms.`, { code: "tool_timeout" })
                : errorResult(`The tool ${config.name} was cancelled.`, { code: "cancelled" }),
            );
          if (signal.aborted) onAbort();
          else signal.addEventListener("abort", onAbort, { once: true });
        });
        const run = config
          .execute({ ...context, input: parsed.data, signal } as ToolContext<z.output<Schema>>)
          .catch((error: unknown) => {
            if (error instanceof ToolgateError && error.status === 403) throw error;
            const code = (error as { code?: unknown })?.code;
            return errorResult(error instanceof Error ? error.message : String(error), typeof code === "string" ? { code } : undefined);
          });
        return Promise.race([run, aborted]);
      },
    };
    return info;
  }
}
