export { effectivePolicy, isOverridden, needsConfirmation, permissionProblem } from "./rules";
export type { EffectivePolicy } from "./rules";
export { PolicyOverride, PolicyPatch } from "./schema";
export { mergePolicy, policyView, setDisabled, setPolicy } from "./admin";
export type { PolicyChange, PolicyView } from "./admin";
