import { SYSTEM } from "../../scope/schema";
import type { GroupScope } from "../../scope/schema";
import type { PolicyProblem } from "./read";

/** A policy's problems in one layer, and the tools it names that the layer defines (read only when a problem is its alone). */
export type LayerProblems = { layer: GroupScope; problems: readonly PolicyProblem[]; defines: () => readonly string[] };

const MAX_LISTED = 3;

/** "a", "a and b", "a, b and c", "a, b, c and 2 more". */
function listed(names: readonly string[]): string {
  if (names.length > MAX_LISTED) return `${names.slice(0, MAX_LISTED).join(", ")} and ${names.length - MAX_LISTED} more`;
  return names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : (names[0] ?? "");
}

/** "department:a and department:b define http_request, and as agent:x defines fetch". */
function definers(layers: readonly LayerProblems[]): string {
  const byTools = new Map<string, GroupScope[]>();
  for (const { layer, defines } of layers) {
    const tools = listed(defines()) || "its own tools";
    byTools.set(tools, [...(byTools.get(tools) ?? []), layer]);
  }
  return [...byTools].map(([tools, scopes]) => `${listed(scopes)} ${scopes.length > 1 ? "define" : "defines"} ${tools}`).join(", and as ");
}

const keyOf = ({ message, start, end }: PolicyProblem) => `${message}\u0000${start ?? ""}\u0000${end ?? ""}`;

/**
 * A policy's problems over the layers it was validated in, each once: as everyone's layer found it, or, found only
 * in narrower layers, naming them and what they define, e.g. "… not found (as department:payments defines http_request)".
 */
export function mergedProblems(layers: readonly LayerProblems[]): PolicyProblem[] {
  const found = new Map<string, { problem: PolicyProblem; layers: LayerProblems[] }>();
  for (const layer of layers) {
    for (const problem of layer.problems) {
      const seen = found.get(keyOf(problem));
      if (!seen) found.set(keyOf(problem), { problem, layers: [layer] });
      else if (!seen.layers.includes(layer)) seen.layers.push(layer);
    }
  }
  return [...found.values()].map(({ problem, layers: where }) =>
    where.some(({ layer }) => layer === SYSTEM) ? problem : { ...problem, message: `${problem.message} (as ${definers(where)})` },
  );
}
