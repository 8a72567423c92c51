// The module events toolgate listens for on EventBridge. Shared by toolgate's bus rule and its local EventBridge
// endpoint: keep this file free of imports.
export const MODULE_EVENT_SOURCE = "toolgate.modules";

export const ModuleEventType = {
  Loaded: "module.loaded",
  Unloaded: "module.unloaded",
} as const;

export const MODULE_EVENTS_PATTERN = {
  source: [MODULE_EVENT_SOURCE],
  detailType: [ModuleEventType.Loaded, ModuleEventType.Unloaded],
};
