export { defineTool } from "./tool";
export type { Logger, ModuleTool, ToolContext, ToolOutput, ToolPolicy, ToolSpec } from "./tool";
export { defineModule } from "./module";
export type { GroupDefinition, Module, ModuleSpec } from "./module";
export { argumentsHash, CALL_TOKEN_HEADER, CallRefused, JWKS_PATH, toolgateKeys, verifyCallToken } from "./call-token";
export type { SignedCall, VerifiedCall } from "./call-token";
export { describeTool } from "./tool";
export type { DescribedTool, ToolDefinition, ToolDescription } from "./tool";
