import { ulid } from "ulid";
import { callFingerprint } from "./canonical";
import { errorResult } from "./tool";
import type { ToolContext, ToolInfo, ToolMetadata, ToolResult } from "./tool";

export type ToolCallRecord = {
  toolName: string;
  parameters: unknown;
  parametersHash: string;
  sessionID: string;
  timestamp: number;
  callId: string;
};

export type DoomLoop = { detected: true; toolName: string; repeats: number } | { detected: false };

export class ToolRegistryError extends Error {
  constructor(
    readonly code: "duplicate_tool" | "unknown_tool",
    message: string,
  ) {
    super(message);
    this.name = "ToolRegistryError";
  }
}

/** A process-local set of tools defined with Tool.define: lookup, state, history and doom-loop detection. */
export class ToolRegistry {
  private readonly tools = new Map<string, ToolInfo>();
  private readonly history: ToolCallRecord[] = [];

  constructor(private readonly options: { historyLimit?: number; doomLoopThreshold?: number } = {}) {}

  register(tool: ToolInfo): void {
    const key = tool.name.toLowerCase();
    if (this.tools.has(key)) throw new ToolRegistryError("duplicate_tool", `A tool named "${tool.name}" is already registered.`);
    this.tools.set(key, tool);
  }

  unregister(name: string): boolean {
    return this.tools.delete(name.toLowerCase());
  }

  /** Changes a tool's description or metadata in place; its definition and its next execution follow. */
  update(name: string, changes: Partial<Pick<ToolInfo, "description" | "metadata">>): ToolInfo {
    const tool = this.require(name);
    if (changes.description !== undefined) tool.description = changes.description;
    if (changes.metadata !== undefined) tool.metadata = { ...tool.metadata, ...changes.metadata };
    return tool;
  }

  disable(name: string): void {
    this.require(name).disabled = true;
  }

  enable(name: string): void {
    this.require(name).disabled = false;
  }

  get(name: string): ToolInfo | undefined {
    return this.tools.get(name.toLowerCase());
  }

  getAll(): ToolInfo[] {
    return [...this.tools.values()];
  }

  list(category?: string): ToolInfo[] {
    return this.getAll().filter((tool) => category === undefined || tool.metadata.category === category);
  }

  search(query: string): ToolInfo[] {
    const needle = query.trim().toLowerCase();
    if (!needle) return [];
    return this.getAll().filter(
      (tool) =>
        tool.name.toLowerCase().includes(needle) ||
        tool.description.toLowerCase().includes(needle) ||
        (tool.metadata.tags ?? []).some((tag) => tag.toLowerCase().includes(needle)),
    );
  }

  findByTag(tag: string): ToolInfo[] {
    return this.getAll().filter((tool) => (tool.metadata.tags ?? []).includes(tag));
  }

  getStats() {
    const tools = this.getAll();
    const categories: Record<string, number> = {};
    for (const tool of tools) {
      const category = tool.metadata.category ?? "uncategorised";
      categories[category] = (categories[category] ?? 0) + 1;
    }
    return {
      totalTools: tools.length,
      disabledTools: tools.filter((tool) => tool.disabled).length,
      categories,
      recordedCalls: this.history.length,
    };
  }

  getCallHistory(limit = this.historyLimit): ToolCallRecord[] {
    return this.history.slice(-limit).reverse();
  }

  /** The same tool with the same (canonical) input N times in a row, within the sliding window of recent calls. */
  detectDoomLoop(sessionID?: string, threshold = this.options.doomLoopThreshold ?? 3): DoomLoop {
    const recent = this.history.filter((record) => sessionID === undefined || record.sessionID === sessionID).slice(-threshold);
    if (recent.length < threshold) return { detected: false };
    const [first] = recent;
    return recent.every((record) => record.parametersHash === first!.parametersHash)
      ? { detected: true, toolName: first!.toolName, repeats: recent.length }
      : { detected: false };
  }

  /** Runs a registered, enabled tool with a full context; the call goes into the bounded history. */
  async execute(name: string, input: unknown, context: Partial<Omit<ToolContext<unknown>, "tool" | "registry" | "input">> = {}): Promise<ToolResult> {
    const tool = this.get(name);
    if (!tool) return errorResult(`There is no tool named "${name}".`, { code: "unknown_tool" });
    if (tool.disabled) return errorResult(`The tool "${name}" is disabled.`, { code: "tool_disabled" });
    const callId = context.callId ?? `call_${ulid()}`;
    const sessionID = context.sessionID ?? "anonymous";
    this.remember({ toolName: tool.name, parameters: input, parametersHash: callFingerprint(tool.name, input), sessionID, timestamp: Date.now(), callId });
    return tool.execute({
      callId,
      sessionID,
      ...(context.messageID !== undefined ? { messageID: context.messageID } : {}),
      input,
      metadata: context.metadata ?? (() => {}),
      signal: context.signal ?? new AbortController().signal,
      tool,
      registry: this,
    });
  }

  private get historyLimit() {
    return this.options.historyLimit ?? 100;
  }

  private remember(record: ToolCallRecord) {
    this.history.push(record);
    if (this.history.length > this.historyLimit) this.history.splice(0, this.history.length - this.historyLimit);
  }

  private require(name: string): ToolInfo {
    const tool = this.get(name);
    if (!tool) throw new ToolRegistryError("unknown_tool", `There is no tool named "${name}".`);
    return tool;
  }
}

export type { ToolMetadata };
