// The module events' names are the module SDK's, which sends them: one home for both sides.
export { MODULE_EVENT_SOURCE, MODULE_EVENTS_PATTERN, ModuleEventType } from "@toolgate/module/events";
