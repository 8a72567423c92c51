import { api, failed } from "./api";
import { byId, code, consoleHref, element, plural, revealHashTarget, setMessage, spaced } from "./dom";

type Department = { name: string; agents: number; groups: string[] };

function departmentRow(department: Department) {
  return element("tr", { id: "department-" + department.name, "data-department": department.name }, [
    element("th", { scope: "row", text: department.name }),
    element("td", { text: plural(department.agents, "active agent") }),
    element("td", {}, department.groups.length ? spaced(department.groups.map((group) => element("a", { href: consoleHref("/groups") + "#group-" + encodeURIComponent(group) }, [code(group)]))) : ["—"]),
  ]);
}

export async function loadDepartments() {
  const status = byId("load-status");
  setMessage(status, "Loading the departments…");
  try {
    const { departments } = await api<{ departments: Department[] }>("GET", "departments");
    byId("department-rows").replaceChildren(...departments.map(departmentRow));
    byId("department-table").hidden = departments.length === 0;
    setMessage(status, departments.length ? "" : "No department is in use: give an agent a department when you create it, or register a group for one.");
    revealHashTarget()?.classList.add("row-target");
  } catch (error) {
    failed(status, error);
  }
}
