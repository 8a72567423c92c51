import { api, failed } from "./api";
import { badge, byId, code, element, setMessage, timeElement } from "./dom";
import type { ModuleState } from "./types";

const STATUS_BADGES = { loaded: "ok", unloaded: undefined, rejected: "danger" } as const;

function moduleRow(module: ModuleState) {
  return element("tr", {}, [
    element("th", { scope: "row" }, [code(module.module)]),
    element("td", {}, [badge(module.status, STATUS_BADGES[module.status])]),
    element("td", { text: String(module.version) }),
    element("td", {}, [code(module.groupId)]),
    element("td", {}, [module.reason ? element("span", {}, [code(module.reason.error), " " + module.reason.message]) : "—"]),
    element("td", {}, [timeElement(module.updatedAt)]),
  ]);
}

export async function loadModules() {
  const status = byId("load-status");
  setMessage(status, "Loading the modules…");
  try {
    const { modules } = await api<{ modules: ModuleState[] }>("GET", "modules");
    modules.sort((a, b) => a.module.localeCompare(b.module));
    byId("module-rows").replaceChildren(...modules.map(moduleRow));
    byId("module-table").hidden = modules.length === 0;
    setMessage(status, modules.length ? "" : "No module has announced itself yet: a module loads by sending module.loaded to the event bus.");
  } catch (error) {
    failed(status, error);
  }
}
